-- Shared by the Neovim e2e drivers: write the result file and quit; poll a condition.
local U = {}

function U.finisher(result, result_path, before)
  return function(ok, why)
    result.ok, result.why = ok, why
    if before then before(result) end
    local f = io.open(result_path, "w")
    f:write(vim.json.encode(result))
    f:close()
    vim.cmd("qa!")
  end
end

function U.poller(finish)
  return function(check, timeout_ms, on_ok, what)
    local deadline = vim.uv.now() + timeout_ms
    local function tick()
      local value = check()
      if value then return on_ok(value) end
      if vim.uv.now() > deadline then return finish(false, "timed out waiting for " .. what) end
      vim.defer_fn(tick, 100)
    end
    tick()
  end
end

return U
