-- RayCluster (ray.io/v1): status.state is ready, suspended or failed once known.
local hs = {status = "Progressing", message = "Waiting for the Ray head and workers"}
if obj.status == nil or obj.status.state == nil then
  return hs
end
local state = obj.status.state
if state == "ready" then
  hs.status = "Healthy"
  hs.message = "Ray cluster ready"
elseif state == "failed" then
  hs.status = "Degraded"
  hs.message = obj.status.reason or "Ray cluster failed"
elseif state == "suspended" then
  hs.status = "Suspended"
  hs.message = "Suspended (waiting for quota)"
else
  hs.message = "Ray cluster " .. state
end
return hs
