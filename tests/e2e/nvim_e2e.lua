-- Driven by tests/e2e/test_neovim.py: a real headless Neovim with Tandem's Lua client and the
-- real server. Types code in insert mode, waits for the suggestion, accepts it with <Tab>,
-- saves, and writes what happened to $TANDEM_E2E_RESULT.
local repo, file, result_path = os.getenv("TANDEM_REPO"), os.getenv("TANDEM_E2E_FILE"), os.getenv("TANDEM_E2E_RESULT")
vim.opt.runtimepath:prepend(repo .. "/client-nvim")
vim.opt.autoindent = false
vim.opt.swapfile = false
local tandem = require("tandem")
tandem.setup({ cmd = vim.json.decode(os.getenv("TANDEM_SERVER_CMD")), settings = { threads = 2, latencyBudgetMs = 0 }, debounce_ms = 30 })

local result = { steps = {} }
package.path = repo .. "/tests/e2e/?.lua;" .. package.path
local U = require("nvim_util")
local finish = U.finisher(result, result_path)
local poll = U.poller(finish)

vim.cmd("edit " .. file)
local ready = false
poll(function()
  tandem.status(function(st) ready = st and st.engine == "ready" end)
  return ready
end, 240000, function()
  table.insert(result.steps, "ready")
  vim.api.nvim_feedkeys("Go    return ", "t", false)
  poll(function() return tandem.suggestion() end, 60000, function(s)
    result.suggestion = s.text
    local marks = vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_create_namespace("tandem"), 0, -1, { details = true })
    result.extmark_text = marks[1] and marks[1][4].virt_text[1][1] or nil
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Tab><Esc>:w<CR>", true, false, true), "t", false)
    poll(function() return vim.fn.mode() == "n" and not vim.bo.modified end, 10000, function()
      result.buffer = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
      finish(true)
    end, "the accepted text to be saved")
  end, "a suggestion")
end, "the model")
