"""The one family of patterns for "a definition line" (lsp_server/text.py): what each language's
definition looks like, and the lines that look alike but define nothing."""
import pytest

from lsp_server.text import definition_name

DEFINES = [
    ("def f(x):", "f"), ("async def load(self):", "load"), ("class Cache(Base):", "Cache"),
    ("export function foo(a) {", "foo"), ("export default class App {", "App"), ("func (r *T) Foo() {", "Foo"),
    ("pub(crate) fn parse(s: &str) -> u32 {", "parse"), ("interface Opts {", "Opts"),
    # class members of JavaScript/TypeScript: the shape names them
    ("cleanup() {", "cleanup"), ("cleanup(now = Date.now()) {", "cleanup"),
    ("private async load(id: string): Promise<Item> {", "load"), ("static create<T>(o: Opts<T> = {}): Foo<T> {", "create"),
    ("map<U>(callback: (value: V) => U): U[] {", "map"), ("get attributes(): { [key: string]: any } {", "get attributes"),
    ("get size() {", "get size"), ("set size(v) {", "set size"), ("get(key) {", "get"),
    ("constructor(", "constructor"), ("private async refresh(", "refresh"),
    # functions named by assignment or as an object's property
    ("error: function(code, message, token) {", "error"), ("Parser.prototype.peek = function () {", "peek"),
    ("RetryOperation.prototype.retry = function(err, delay) {", "retry"), ("const load = async (id) => {", "load"),
    ("exports.parse = function parse(s) {", "parse"), ("callback: (err) => {", "callback"),
    # Rust impl blocks, generic or not: the trait and the type, their parameters aside
    ("impl Cache {", "Cache"), ("impl<T> Add<T> for ByteSize", "Add for ByteSize"),
    ("impl<T: Into<u64>> AddAssign<T> for ByteSize where T: Copy {", "AddAssign for ByteSize"),
    ("unsafe impl<T: Send> Sync for Channel<T> {}", "Sync for Channel"),
]
DEFINES_NOTHING = ["if (x) {", "} else {", "while(x) {", "for (const a of b) {", "switch (kind) {", "catch (e) {",
                   "describe('cache', () => {", "it('expires', async () => {", "foo(function () {", "foo(", "foo(a, b);",
                   "return foo(x) {", "const x = foo(a) {", "Some(v) => {", "x = 1",
                   "const f = (x) => x + 1;", "result = function(a, b)", "return function (x) {", "key: value,",
                   "implemented = true;", "impl_for(x);"]


@pytest.mark.parametrize("line,name", DEFINES)
def test_definition_lines_name_what_they_define(line, name):
    assert definition_name(line) == name


@pytest.mark.parametrize("line", DEFINES_NOTHING)
def test_statements_and_calls_define_nothing(line):
    assert definition_name(line) is None
