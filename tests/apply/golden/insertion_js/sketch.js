// ... rest of the code unchanged
function read(path) {
  return fs.readFileSync(path, "utf8");
}

function exists(path) {
  return fs.existsSync(path);
}

function write(path, text) {
// ...
module.exports = { read, write, exists };
