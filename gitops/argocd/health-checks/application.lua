-- An Application is as healthy as its own reported health.
local hs = {status = "Progressing", message = ""}
if obj.status ~= nil and obj.status.health ~= nil and obj.status.health.status ~= nil then
  hs.status = obj.status.health.status
  if obj.status.health.message ~= nil then
    hs.message = obj.status.health.message
  end
end
return hs
