-- MPIJob (kubeflow.org/v2beta1, the MPI Operator v0.8.0): the newest true condition decides, as
-- for the PyTorchJob (its conditions: Created, Running, Restarting, Succeeded, Suspended, Failed;
-- pkg/apis/kubeflow/v2beta1/types.go). Kueue keeps a queued job suspended, which is not a failure.
local hs = {status = "Progressing", message = "Waiting for the MPI Operator"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
local latest = nil
for _, condition in ipairs(obj.status.conditions) do
  if condition.status == "True" then
    latest = condition
  end
end
if latest == nil then
  return hs
end
local message = latest.message or latest.type
if latest.type == "Succeeded" then
  hs.status = "Healthy"
elseif latest.type == "Failed" then
  hs.status = "Degraded"
elseif latest.type == "Suspended" then
  hs.status = "Suspended"
else
  hs.status = "Progressing"
end
hs.message = message
return hs
