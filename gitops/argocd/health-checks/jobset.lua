-- JobSet (jobset.x-k8s.io): terminal conditions first, then suspension.
local hs = {status = "Progressing", message = "JobSet running"}
if obj.status == nil then
  -- The JobSet controller writes a status on its first reconcile.
  return {status = "Progressing", message = "Not yet reconciled by the JobSet controller"}
end
if obj.status.conditions == nil then
  return hs
end
local found = {}
for _, condition in ipairs(obj.status.conditions) do
  if condition.status == "True" then
    found[condition.type] = condition.message or condition.type
  end
end
if found["Failed"] ~= nil then
  hs.status = "Degraded"
  hs.message = found["Failed"]
elseif found["Completed"] ~= nil then
  hs.status = "Healthy"
  hs.message = found["Completed"]
elseif found["Suspended"] ~= nil then
  hs.status = "Suspended"
  hs.message = found["Suspended"]
end
return hs
