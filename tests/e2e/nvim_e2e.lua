-- Driven by tests/e2e/test_neovim.py: a real headless Neovim with Tandem's Lua client and the
-- real server. Records every notification from the start (a clean start has none), types code
-- in insert mode, waits for the suggestion, takes its next word (<C-Right>), the rest with
-- <Tab>, saves, asks for the status, and writes what happened to $TANDEM_E2E_RESULT.
local repo, file, result_path = os.getenv("TANDEM_REPO"), os.getenv("TANDEM_E2E_FILE"), os.getenv("TANDEM_E2E_RESULT")
vim.opt.runtimepath:prepend(repo .. "/client-nvim")
vim.opt.autoindent = false
vim.cmd("filetype indent off") -- the typed line is exactly "    return " (Python's indent script would dedent, then add)
vim.opt.swapfile = false
local notifications = {}
vim.notify = function(msg, level) -- window/showMessage and the client's own messages come here
  table.insert(notifications, { msg = msg, level = level or vim.log.levels.INFO })
end
local tandem = require("tandem")
tandem.setup({ cmd = vim.json.decode(os.getenv("TANDEM_SERVER_CMD")), settings = { threads = 2, latencyBudgetMs = 0 }, debounce_ms = 30 })

local result = { steps = {}, notifications = notifications }
-- what <C-Right> and <C-Down> take of a suggestion
result.parts = { tandem.next_part("  self.items = []\nreturn x", "word"), tandem.next_part("(n - 1)", "word"),
                 tandem.next_part("a = f(x)\nb = 2", "line"), tandem.next_part("\n    b = 2\n", "line"),
                 tandem.next_part("x + 1", "line") }
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
    local ns = vim.api.nvim_create_namespace("tandem")
    local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
    result.extmark_text = marks[1] and marks[1][4].virt_text[1][1] or nil
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-Right>", true, false, true), "t", false)
    poll(function()
      return (vim.api.nvim_get_current_line():match("return (.+)$")) -- something after "return "
    end, 10000, function()
      result.line_after_word = vim.api.nvim_get_current_line()
      result.rest_after_word = tandem.suggestion() and tandem.suggestion().text or nil
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Tab><Esc>:w<CR>", true, false, true), "t", false)
      poll(function() return vim.fn.mode() == "n" and not vim.bo.modified end, 10000, function()
        result.buffer = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
        local st
        tandem.status(function(r) st = r end)
        poll(function() return st end, 10000, function()
          result.stats = st.stats
          result.backend = st.backend
          finish(true)
        end, "the status")
      end, "the accepted text to be saved")
    end, "the next word")
  end, "a suggestion")
end, "the model")
