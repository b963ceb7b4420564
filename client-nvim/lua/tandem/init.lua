-- Tandem's Neovim client for 0.10 and 0.11 (0.12+ can use the built-in
-- vim.lsp.inline_completion instead; see README). It asks the Tandem server for
-- textDocument/inlineCompletion while you type in insert mode (debounced, cancelling the
-- previous request), shows the suggestion as virtual text, and accepts it with one key, or its
-- next word or line with two others.
local M = {}

local ns = vim.api.nvim_create_namespace("tandem")
local defaults = {
  cmd = { "tandem", "serve" },
  accept_key = "<Tab>",
  accept_word_key = "<C-Right>", -- the suggestion's next word; falls back to the key's own meaning
  accept_line_key = "<C-Down>",  -- the suggestion's next line
  debounce_ms = 60,
  filetypes = nil, -- nil: every file buffer
  settings = {}, -- sent as initializationOptions.tandem (see the server's settings)
  hl_group = "Comment",
  next_edit = {}, -- next-edit suggestions (<Tab> in normal mode); false to turn off
}
local config = vim.deepcopy(defaults)
local state = { timer = nil, request = nil, suggestion = nil, own_tick = nil }

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = "tandem" })[1]
end

function M.suggestion()
  return state.suggestion
end

function M.clear()
  vim.api.nvim_buf_clear_namespace(0, ns, 0, -1)
  state.suggestion = nil
end

local function cancel_pending()
  if state.request then
    local client, id = state.request.client, state.request.id
    state.request = nil
    pcall(function() client:cancel_request(id) end)
  end
end

local function command(client, name, args, handler)
  client:request("workspace/executeCommand", { command = name, arguments = args or {} }, handler or function() end)
end

local function show(bufnr, row, col, text, client, quiet)
  M.clear()
  local lines = vim.split(text, "\n", { plain = true })
  local opts = { virt_text = { { lines[1], config.hl_group } }, virt_text_pos = "inline", hl_mode = "combine" }
  if #lines > 1 then
    opts.virt_lines = {}
    for i = 2, #lines do
      table.insert(opts.virt_lines, { { lines[i], config.hl_group } })
    end
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, row, col, opts)
  state.suggestion = { bufnr = bufnr, row = row, col = col, text = text, tick = vim.b[bufnr].changedtick }
  if not quiet then command(client, "tandem.didShowCompletion") end
end

function M.request()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then return end
  cancel_pending()
  local win = vim.api.nvim_get_current_win()
  local params = vim.lsp.util.make_position_params(win, client.offset_encoding)
  params.context = { triggerKind = 2 }
  local cursor = vim.api.nvim_win_get_cursor(win)
  local tick = vim.b[bufnr].changedtick
  local ok, id = client:request("textDocument/inlineCompletion", params, function(err, result)
    state.request = nil
    if err or not result then return end
    local items = result.items or result
    local item = items[1]
    -- stale: the buffer or cursor moved on since the request
    if not item or vim.b[bufnr].changedtick ~= tick or vim.api.nvim_get_current_buf() ~= bufnr then return end
    local now = vim.api.nvim_win_get_cursor(0)
    if now[1] ~= cursor[1] or now[2] ~= cursor[2] or vim.fn.mode() ~= "i" then return end
    local text = type(item.insertText) == "table" and item.insertText.value or item.insertText
    if text and text ~= "" then show(bufnr, cursor[1] - 1, cursor[2], text, client) end
  end, bufnr)
  if ok then state.request = { client = client, id = id } end
end

function M.schedule()
  -- the change a partial accept made: the rest of the suggestion stays on screen
  if state.own_tick and state.own_tick == vim.b.changedtick then return end
  M.clear()
  if state.timer then state.timer:stop() end
  state.timer = state.timer or vim.uv.new_timer()
  state.timer:start(config.debounce_ms, 0, vim.schedule_wrap(M.request))
end

--- The first `part` of the suggestion on screen: "all", "word" (up to the end of its next word,
--- or its next run of punctuation) or "line" (up to and including its first line break).
function M.next_part(text, part)
  if part == "word" then
    return text:match("^%s*[%w_]+") or text:match("^%s*[^%w_%s]+") or text:match("^%s+") or text
  elseif part == "line" then
    local nl = text:find("\n", 1, true)
    if nl == 1 then return "\n" .. (text:match("^\n([^\n]*)") or "") end -- a line break first: the line after it
    return nl and text:sub(1, nl - 1) or text
  end
  return text
end

--- Accept the suggestion on screen (part: "all", the default, "word" or "line"); returns false
--- when there is none. What is left of it stays on screen.
function M.accept(part)
  local s = state.suggestion
  if not s or s.bufnr ~= vim.api.nvim_get_current_buf() or vim.b[s.bufnr].changedtick ~= s.tick then
    M.clear()
    return false
  end
  M.clear()
  local taken = M.next_part(s.text, part or "all")
  local rest = s.text:sub(#taken + 1)
  local lines = vim.split(taken, "\n", { plain = true })
  vim.api.nvim_buf_set_text(s.bufnr, s.row, s.col, s.row, s.col, lines)
  local last_row = s.row + #lines - 1
  local last_col = (#lines == 1 and s.col or 0) + #lines[#lines]
  vim.api.nvim_win_set_cursor(0, { last_row + 1, last_col })
  local client = client_for(s.bufnr)
  if rest ~= "" and client then
    state.own_tick = vim.b[s.bufnr].changedtick
    show(s.bufnr, last_row, last_col, rest, client, true)
  end
  if client then
    command(client, "tandem.didAcceptCompletion", rest ~= "" and { { partial = part } } or {})
  end
  return true
end

function M.plan(instruction)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    vim.notify("Tandem: the language server is not attached to this buffer", vim.log.levels.WARN)
    return
  end
  local commands = (client.server_capabilities.executeCommandProvider or {}).commands or {}
  if not vim.tbl_contains(commands, "tandem.planChange") then
    vim.notify("Tandem: planning a change is not available in this server version yet", vim.log.levels.INFO)
    return
  end
  command(client, "tandem.planChange", { { instruction = instruction, uri = vim.uri_from_bufnr(bufnr) } },
    function(err, result)
      if err then vim.notify("Tandem: plan failed: " .. err.message, vim.log.levels.ERROR) return end
      if result and result.message then vim.notify("Tandem: " .. result.message) end
    end)
end

function M.status(cb)
  local client = client_for(vim.api.nvim_get_current_buf())
  if not client then return cb and cb(nil) end
  command(client, "tandem.status", {}, function(_, result)
    if cb then cb(result) else vim.notify("Tandem: " .. vim.inspect(result)) end
  end)
end

local function attach(args)
  local bufnr = args.buf
  if vim.bo[bufnr].buftype ~= "" then return end
  if config.filetypes and not vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then return end
  vim.lsp.start({
    name = "tandem",
    cmd = config.cmd,
    root_dir = vim.fs.root(bufnr, { ".git" }) or vim.fn.getcwd(),
    init_options = { tandem = config.settings },
  }, { bufnr = bufnr })
end

function M.setup(opts)
  config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  local group = vim.api.nvim_create_augroup("tandem", { clear = true })
  vim.api.nvim_create_autocmd({ "FileType", "BufEnter" }, { group = group, callback = attach })
  vim.api.nvim_create_autocmd("TextChangedI", { group = group, callback = M.schedule })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, { group = group, callback = function()
    cancel_pending()
    M.clear()
  end })
  vim.api.nvim_create_autocmd("CursorMovedI", { group = group, callback = function()
    local s = state.suggestion
    if s then
      local c = vim.api.nvim_win_get_cursor(0)
      if c[1] - 1 ~= s.row or c[2] ~= s.col then M.clear() end
    end
  end })
  -- not an <expr> mapping: those may not change the buffer (textlock)
  for key, part in pairs({ [config.accept_key] = "all", [config.accept_word_key] = "word",
                           [config.accept_line_key] = "line" }) do
    if key and key ~= "" then
      vim.keymap.set("i", key, function()
        if not M.accept(part) then
          vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(key, true, false, true), "n", false)
        end
      end, { silent = true, desc = "Tandem: accept " .. (part == "all" and "the suggestion" or "its next " .. part) })
    end
  end
  if config.next_edit ~= false then
    require("tandem.next_edit").setup(type(config.next_edit) == "table" and config.next_edit or {})
  end
  vim.api.nvim_create_user_command("TandemPlan", function(o) M.plan(o.args) end, { nargs = "+", desc = "Tandem: plan a change" })
  vim.api.nvim_create_user_command("TandemStatus", function() M.status() end, { desc = "Tandem: status" })
end

return M
