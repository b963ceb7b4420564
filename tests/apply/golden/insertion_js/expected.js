const fs = require("fs");

function read(path) {
  return fs.readFileSync(path, "utf8");
}

function exists(path) {
  return fs.existsSync(path);
}

function write(path, text) {
  fs.writeFileSync(path, text);
}

module.exports = { read, write, exists };
