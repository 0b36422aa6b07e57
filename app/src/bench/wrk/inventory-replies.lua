-- wrk script: each request is an agent's inventory reply (POST .../infra-envs/{id}/hosts/{host}/instructions) for one
-- host of one cluster, round-robin over its hosts, each with a new hostname, so that every reply changes what the
-- service stores. Arguments: <infra_env_id> <agent token> <hosts> <run> <inventory.json>; the host ids are those
-- scripts/bench-one-cluster registered (run and index). Used by scripts/bench-one-cluster.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local function escape(s)
  return (s:gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\n', ''))
end
function init(args)
  counter = 0
  ie, token, hosts, run = args[1], args[2], tonumber(args[3]), tonumber(args[4])
  local f = assert(io.open(args[5], "r"))
  local inv = f:read("*a")
  f:close()
  -- the inventory as the reply's output string, its hostname a placeholder
  inv = inv:gsub('"hostname"%s*:%s*"[^"]*"', '"hostname":"@HOSTNAME@"')
  template = escape(inv)
end
request = function()
  counter = counter + 1
  local i = (counter * 7 + tid) % hosts
  local host = string.format("%08x-0000-4000-8000-%012x", run, i)
  local name = string.format("bench-%d-%d-%d", tid, counter, i)
  local body = '{"step_id":"inventory-' .. string.format("%08x", counter) .. '","step_type":"inventory","exit_code":0,'
    .. '"output":"' .. template:gsub("@HOSTNAME@", name) .. '"}'
  return wrk.format("POST", "/api/assisted-install/v2/infra-envs/" .. ie .. "/hosts/" .. host .. "/instructions",
    { ["X-Secret-Key"] = token, ["Content-Type"] = "application/json" }, body)
end
