-- RayJob (ray.io/v1): jobDeploymentStatus says where the job is; jobStatus how it ended.
local hs = {status = "Progressing", message = "Waiting for KubeRay"}
if obj.status == nil or obj.status.jobDeploymentStatus == nil then
  return hs
end
local deployment = obj.status.jobDeploymentStatus
local job = obj.status.jobStatus or ""
local detail = obj.status.message or ""
if deployment == "Complete" and job == "SUCCEEDED" then
  hs.status = "Healthy"
  hs.message = "Ray job succeeded"
elseif deployment == "Failed" or (deployment == "Complete" and (job == "FAILED" or job == "STOPPED")) then
  hs.status = "Degraded"
  hs.message = "Ray job " .. string.lower(job ~= "" and job or deployment) .. (detail ~= "" and (": " .. detail) or "")
elseif deployment == "Suspended" or deployment == "Suspending" then
  hs.status = "Suspended"
  hs.message = "Suspended (waiting for quota)"
else
  hs.message = "Ray job " .. string.lower(deployment) .. (job ~= "" and (", " .. string.lower(job)) or "")
end
return hs
