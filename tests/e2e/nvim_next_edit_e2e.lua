-- Driven by tests/e2e/test_neovim.py: rename one call site in normal mode, wait for the next-edit
-- suggestion, <Tab> (jump) <Tab> (apply) twice along the chain, save; results to $TANDEM_E2E_RESULT.
local repo, file, result_path = os.getenv("TANDEM_REPO"), os.getenv("TANDEM_E2E_FILE"), os.getenv("TANDEM_E2E_RESULT")
vim.opt.runtimepath:prepend(repo .. "/client-nvim")
vim.opt.swapfile = false
local tandem = require("tandem")
tandem.setup({ cmd = vim.json.decode(os.getenv("TANDEM_SERVER_CMD")), settings = { threads = 1, retrieval = false } })
local next_edit = require("tandem.next_edit")

local result = { steps = {}, hints = {} }
package.path = repo .. "/tests/e2e/?.lua;" .. package.path
local U = require("nvim_util")
local finish = U.finisher(result, result_path, function(r)
  r.buffer = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
end)
local poll = U.poller(finish)

local function keys(k) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "mt", false) end

local function hint()
  local marks = vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_create_namespace("tandem_next_edit"), 0, -1, { details = true })
  for _, m in ipairs(marks) do
    if m[4].virt_lines then return m[4].virt_lines[1][2][1] end
  end
end

local function step_chain(n)
  if n == 0 then
    keys(":w<CR>")
    return poll(function() return not vim.bo.modified end, 10000, function() finish(true) end, "the save")
  end
  poll(function() return next_edit.suggestion() and hint() end, 30000, function(h)
    table.insert(result.hints, h)
    local target = next_edit.suggestion().range.start.line + 1
    keys("<Tab>")
    poll(function() return vim.api.nvim_win_get_cursor(0)[1] == target and hint() and hint():find("apply") end, 10000,
      function()
        table.insert(result.steps, "jumped to line " .. target)
        keys("<Tab>")
        poll(function() return vim.api.nvim_buf_get_lines(0, target - 1, target, false)[1]:find("calculate") end, 10000,
          function()
            table.insert(result.steps, "applied on line " .. target)
            step_chain(n - 1)
          end, "the edit to be applied")
      end, "the jump")
  end, "a next-edit suggestion")
end

vim.cmd("edit " .. file)
poll(function() return #vim.lsp.get_clients({ bufnr = 0, name = "tandem" }) > 0 end, 60000, function()
  vim.defer_fn(function()
    keys("2G0fccwcalculate<Esc>")  -- the user renames the first call by hand
    table.insert(result.steps, "renamed")
    step_chain(2)
  end, 500)
end, "the server")
