-- PyTorchJob (kubeflow.org/v1): the newest true condition decides. Kueue keeps a queued job
-- suspended, which is not a failure.
local hs = {status = "Progressing", message = "Waiting for the Training Operator"}
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
