-- Volcano Job (batch.volcano.sh/v1alpha1): status.state.phase, one of the ten phases the CRD
-- enumerates. A job waiting for its gang (Pending) or between runs is progressing; Aborted is a
-- pause that `vcctl job resume` ends; Failed and Terminated (killed by a policy) are failures.
local hs = {status = "Progressing", message = "Waiting for Volcano"}
if obj.status == nil or obj.status.state == nil or obj.status.state.phase == nil then
  return hs
end
local phase = obj.status.state.phase
local detail = obj.status.state.message or obj.status.state.reason or ""
if detail == "" then
  detail = "Volcano Job " .. phase
end
hs.message = detail
if phase == "Completed" then
  hs.status = "Healthy"
elseif phase == "Failed" or phase == "Terminated" or phase == "Terminating" then
  hs.status = "Degraded"
elseif phase == "Aborted" or phase == "Aborting" then
  hs.status = "Suspended"
end
return hs
