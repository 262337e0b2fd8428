-- ClusterQueue and LocalQueue (kueue.x-k8s.io): the Active condition says whether the queue
-- can admit workloads; when False its reason names the cause (a missing flavor, a stopped queue).
local hs = {status = "Progressing", message = "Waiting for Kueue"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
for _, condition in ipairs(obj.status.conditions) do
  if condition.type == "Active" then
    if condition.status == "True" then
      hs.status = "Healthy"
    else
      hs.status = "Degraded"
    end
    hs.message = condition.message or condition.reason or ""
  end
end
return hs
