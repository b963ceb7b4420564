-- Next-edit suggestions for Neovim: after an edit (normal mode, or leaving insert mode) ask the
-- server for `tandem/nextEdit`; show the edit where it would happen (the old text struck
-- through, the new line as a virtual line below with a hint). <Tab> in normal mode jumps there,
-- <Tab> again applies it; any other change dismisses it. Accepting feeds the server's history,
-- so a chain of edits goes <Tab><Tab>, <Tab><Tab>. Shown/accepted/rejected go to local stats.
local M = {}

local ns = vim.api.nvim_create_namespace("tandem_next_edit")
local state = { suggestion = nil, timer = nil, applying = false }
local config = { key = "<Tab>", debounce_ms = 250, hl_old = "DiffDelete", hl_new = "DiffAdd" }

local function byteindex(line, enc, index)
  if vim.fn.has("nvim-0.11") == 1 then return vim.str_byteindex(line, enc, index, false) end
  return vim.str_byteindex(line, index, enc == "utf-16")  -- 0.10 signature
end

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = "tandem" })[1]
end

local function report(bufnr, what)
  local client = client_for(bufnr)
  if client then client:request("workspace/executeCommand", { command = what, arguments = {} }, function() end) end
end

function M.suggestion()
  return state.suggestion
end

function M.clear(rejected)
  local s = state.suggestion
  if s and vim.api.nvim_buf_is_valid(s.bufnr) then
    vim.api.nvim_buf_clear_namespace(s.bufnr, ns, 0, -1)
    if rejected then report(s.bufnr, "tandem.didRejectNextEdit") end
  end
  state.suggestion = nil
end

local function render(s)
  vim.api.nvim_buf_clear_namespace(s.bufnr, ns, 0, -1)
  local r = s.range
  local line = vim.api.nvim_buf_get_lines(s.bufnr, r.start.line, r.start.line + 1, false)[1] or ""
  local client = client_for(s.bufnr)
  local enc = client and client.offset_encoding or "utf-16"
  local scol = byteindex(line, enc, r.start.character)
  local ecol = byteindex(line, enc, r["end"].character)
  if ecol > scol then
    vim.api.nvim_buf_set_extmark(s.bufnr, ns, r.start.line, scol, { end_col = ecol, hl_group = config.hl_old })
  end
  local preview = line:sub(1, scol) .. s.newText .. line:sub(ecol + 1)
  local hint = s.jumped and "  <Tab> apply" or "  <Tab> jump here"
  vim.api.nvim_buf_set_extmark(s.bufnr, ns, r.start.line, 0, {
    virt_lines = { { { preview, config.hl_new }, { hint, "Comment" } } },
  })
end

function M.request()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then return end
  local win = vim.api.nvim_get_current_win()
  local params = vim.lsp.util.make_position_params(win, client.offset_encoding)
  local tick = vim.b[bufnr].changedtick
  client:request("tandem/nextEdit", params, function(err, result)
    -- stale (the buffer moved on) or nothing to suggest: drop it
    if err or not result or result == vim.NIL or vim.b[bufnr].changedtick ~= tick then return end
    if vim.api.nvim_get_current_buf() ~= bufnr then return end
    state.suggestion = { bufnr = bufnr, range = result.range, newText = result.newText, tick = tick, jumped = false }
    render(state.suggestion)
    report(bufnr, "tandem.didShowNextEdit")
  end, bufnr)
end

function M.schedule()
  if state.applying then return end
  if state.suggestion then M.clear(true) end
  state.timer = state.timer or vim.uv.new_timer()
  state.timer:stop()
  state.timer:start(config.debounce_ms, 0, vim.schedule_wrap(M.request))
end

--- Jump to the suggested edit, or apply it when already there; false when there is none.
function M.tab()
  local s = state.suggestion
  local bufnr = vim.api.nvim_get_current_buf()
  if not s or s.bufnr ~= bufnr or vim.b[bufnr].changedtick ~= s.tick then
    M.clear()
    return false
  end
  local client = client_for(bufnr)
  local enc = client and client.offset_encoding or "utf-16"
  local line = vim.api.nvim_buf_get_lines(bufnr, s.range.start.line, s.range.start.line + 1, false)[1] or ""
  local col = byteindex(line, enc, s.range.start.character)
  local cur = vim.api.nvim_win_get_cursor(0)
  if not s.jumped and (cur[1] - 1 ~= s.range.start.line or cur[2] ~= col) then
    vim.api.nvim_win_set_cursor(0, { s.range.start.line + 1, col })
    s.jumped = true
    render(s)
    return true
  end
  state.applying = true
  M.clear()
  vim.lsp.util.apply_text_edits({ { range = s.range, newText = s.newText } }, bufnr, enc)
  state.applying = false
  report(bufnr, "tandem.didAcceptNextEdit")
  M.schedule()  -- the accepted edit is history now: the next one in the chain
  return true
end

function M.setup(opts)
  config = vim.tbl_deep_extend("force", config, opts or {})
  local group = vim.api.nvim_create_augroup("tandem_next_edit", { clear = true })
  vim.api.nvim_create_autocmd({ "TextChanged", "InsertLeave" }, { group = group, callback = M.schedule })
  vim.api.nvim_create_autocmd({ "InsertEnter", "BufLeave" }, { group = group, callback = function() M.clear(true) end })
  vim.keymap.set("n", config.key, function()
    if not M.tab() then
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(config.key, true, false, true), "n", false)
    end
  end, { silent = true, desc = "Tandem: jump to / apply the next edit" })
end

return M
