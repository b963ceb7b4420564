def call_and_report(item, when, log=True, **kwds):
    ihook = item.ihook
    if when == "setup":
        runtest_hook = ihook.pytest_runtest_setup
    elif when == "call":
        runtest_hook = ihook.pytest_runtest_call
    elif when == "teardown":
        runtest_hook = ihook.pytest_runtest_teardown
    else:
        assert False, f"Unhandled runtest hook case: {when}"
    reraise = (Exit,)
    if not item.config.getoption("usepdb", False):
        reraise += (KeyboardInterrupt,)
    call = CallInfo.from_call(lambda: runtest_hook(item=item, **kwds), when=when, reraise=reraise)
    report = ihook.pytest_runtest_makereport(item=item, call=call)
    if check_interactive_exception(call, report):
        ihook.pytest_exception_interact(node=item, call=call, report=report)
    return report
# ... existing code ...
    return True


TResult = TypeVar("TResult", covariant=True)
