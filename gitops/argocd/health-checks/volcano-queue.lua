-- Volcano Queue (scheduling.volcano.sh/v1beta1): status.state is Open, Closing, Closed or Unknown.
-- Only an open queue takes jobs.
local hs = {status = "Progressing", message = "Waiting for Volcano"}
if obj.status == nil or obj.status.state == nil then
  return hs
end
local state = obj.status.state
hs.message = "Queue " .. state
if state == "Open" then
  hs.status = "Healthy"
elseif state == "Closed" or state == "Closing" then
  hs.status = "Degraded"
end
return hs
