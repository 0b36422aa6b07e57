-- wrk script: each request registers a new host (upstream's agent call POST .../infra-envs/{id}/hosts) with a
-- host_id unique per run, wrk thread and request (a run's time in the second group: a second run registers new
-- machines, not the first run's again in other infra-envs), round-robin over the infra-envs given as arguments
-- ("<infra_env_id>=<agent token>" each). Used by scripts/bench-registration.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local run = os.time() % 65536
function init(args)
  counter = 0
  targets = {}
  for _, a in ipairs(args) do
    local ie, token = a:match("([^=]+)=(.+)")
    table.insert(targets, { path = "/api/assisted-install/v2/infra-envs/" .. ie .. "/hosts", token = token })
  end
end
request = function()
  counter = counter + 1
  local t = targets[(counter % #targets) + 1]
  local id = string.format("%08x-%04x-4000-8000-%012x", tid, run, counter)
  return wrk.format("POST", t.path, { ["X-Secret-Key"] = t.token, ["Content-Type"] = "application/json" },
    '{"host_id":"' .. id .. '","discovery_agent_version":"bench"}')
end
