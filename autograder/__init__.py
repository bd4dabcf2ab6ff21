"""Sandboxed autograder for attention homework.

Kept import-light on purpose: the sandboxed worker imports this package before it drops privileges."""
__version__ = "0.1.0"
__all__ = ["__version__"]


def exit_without_teardown(code: object = 0) -> None:
    """End this process as `sys.exit(code)` would, minus the interpreter's teardown: with torch loaded,
    freeing every module costs about a third of what importing torch did (measured: `import torch`
    1.5 s of CPU, 2.07 s with the normal exit). The atexit handlers still run (timers, temporary
    files), and the output is flushed; where another non-daemon thread still runs, the normal exit
    waits for it."""
    import atexit
    import os
    import sys
    import threading
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        sys.exit(code)  # type: ignore[arg-type]
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say
            pass
    os._exit(status & 0xFF)
