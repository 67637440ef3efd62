#!/usr/bin/env python3
"""Drive an MCP stdio server with the official Python SDK client (mcp 2.3.0).

Run with the test venv:  .test-tools/venv/bin/python tests/mcp/pyclient.py [SCRIPT.json | -]
(no argument or "-" reads the script from stdin).

Script (JSON object):
  {
    "mode": "legacy" | "auto" | "2026-07-28",     # default "auto" (probe server/discover, fall back to initialize)
    "command": ["ctx", "mcp", "-s", "DIR"],       # required, non-empty list of strings
    "env": {"K": "V"},                            # optional, merged over the inherited environment
    "cwd": "/path",                               # optional working directory of the server
    "timeout": 60,                                # optional per-request read timeout in seconds (default 60)
    "cache": false,                               # optional: enable the SDK's response cache (default off)
    "exclude_unset": false,                       # optional: dump only fields the peer actually sent (see below)
    "steps": [
      {"op": "list_tools"},
      {"op": "call_tool", "name": "echo", "arguments": {...}, "meta": {...}, "progress": true},
      {"op": "list_resources"},
      {"op": "list_resource_templates"},
      {"op": "list_prompts"},
      {"op": "read_resource", "uri": "internal://..."},
      {"op": "concurrent_calls", "calls": [{"name": "...", "arguments": {...}}, ...]},
      {"op": "sleep", "seconds": 0.5}
    ]
  }

Output: ONE JSON document on stdout:
  {"protocol_version": "...", "server_info": {...}|null, "server_capabilities": {...},
   "steps": [...], "notifications": [...]}
Each step is the SDK result as model_dump(mode="json", by_alias=True, exclude_none=True), or
{"error": {"type": ExcClass, "message": str, "code"?: int, "data"?: any}} when the step raised.
concurrent_calls -> a list (in call order) of such results/errors, fired at once with
asyncio.gather over the one session. call_tool with "progress": true adds
"progress_notifications": [{"progress", "total", "message"}...] to the step's object.
sleep -> {"slept": seconds}. By default the dumps include SDK model defaults the server may
never have sent (e.g. resultType "complete", isError false, ttlMs 0, cacheScope "private" appear
even for a legacy server); with "exclude_unset": true the dump is closer to the wire (only fields
present in the received JSON), which is what to use when asserting on resultType/ttlMs/etc. "notifications" lists the server notifications the session
surfaced (method + params), in arrival order.

Exit codes: 0 the script ran (steps may have errored); 1 could not connect (the JSON document
then has "protocol_version": null and a top-level "error"); 2 bad input (message on stderr).

Notes (mcp 2.3.0 behaviour):
  * The SDK passes only a small env whitelist to the child unless env= is given, so we always
    pass dict(os.environ) | script["env"].
  * call_tool lists tools first if it has not seen the tool yet (to get its outputSchema), and
    validates structuredContent against outputSchema (a failure is reported as a step error of
    type RuntimeError). isError results are returned, not raised.
  * With a modern (2026-07-28) peer, every result must carry resultType or pydantic rejects it.
  * The SDK's response cache is disabled by default here so every step reaches the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

OPS = {
    "list_tools",
    "call_tool",
    "list_resources",
    "list_resource_templates",
    "list_prompts",
    "read_resource",
    "concurrent_calls",
    "sleep",
}


class BadInput(Exception):
    pass


EXCLUDE_UNSET = False


def dump(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=EXCLUDE_UNSET)
    return obj


def unwrap(exc: BaseException) -> BaseException:
    # anyio task groups wrap failures in (nested) exception groups; report the first leaf.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def error_obj(exc: BaseException) -> dict:
    exc = unwrap(exc)
    err: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)}
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        err["code"] = code
        err["message"] = getattr(exc, "message", str(exc))
        data = getattr(exc, "data", None)
        if data is not None:
            try:
                json.dumps(data)
                err["data"] = data
            except (TypeError, ValueError):
                err["data"] = repr(data)
    return {"error": err}


def _obj(v: Any, what: str) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise BadInput(f"{what} must be a JSON object")
    return v


def validate(script: Any) -> dict:
    if not isinstance(script, dict):
        raise BadInput("script must be a JSON object")
    cmd = script.get("command")
    if not (isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd)):
        raise BadInput('"command" must be a non-empty list of strings')
    mode = script.get("mode", "auto")
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if mode not in ("legacy", "auto") and mode not in MODERN_PROTOCOL_VERSIONS:
        raise BadInput(f'"mode" must be "legacy", "auto" or one of {list(MODERN_PROTOCOL_VERSIONS)}; got {mode!r}')
    env = _obj(script.get("env"), '"env"')
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise BadInput('"env" values must be strings')
    cwd = script.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise BadInput('"cwd" must be a string')
    timeout = script.get("timeout", 60)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise BadInput('"timeout" must be a positive number or null')
    steps = script.get("steps", [])
    if not isinstance(steps, list):
        raise BadInput('"steps" must be a list')
    for i, st in enumerate(steps):
        if not isinstance(st, dict) or st.get("op") not in OPS:
            raise BadInput(f"step {i}: needs \"op\" in {sorted(OPS)}")
        op = st["op"]
        if op == "call_tool":
            _check_call(st, f"step {i}")
            _obj(st.get("meta"), f'step {i}: "meta"')
        elif op == "read_resource" and not isinstance(st.get("uri"), str):
            raise BadInput(f'step {i}: read_resource needs a string "uri"')
        elif op == "concurrent_calls":
            calls = st.get("calls")
            if not isinstance(calls, list) or not calls:
                raise BadInput(f'step {i}: concurrent_calls needs a non-empty "calls" list')
            for j, c in enumerate(calls):
                if not isinstance(c, dict):
                    raise BadInput(f"step {i} call {j}: must be an object")
                _check_call(c, f"step {i} call {j}")
        elif op == "sleep":
            s = st.get("seconds")
            if isinstance(s, bool) or not isinstance(s, (int, float)) or s < 0:
                raise BadInput(f'step {i}: sleep needs a non-negative "seconds"')
    return {
        "mode": mode,
        "command": cmd,
        "env": env,
        "cwd": cwd,
        "timeout": timeout,
        "cache": bool(script.get("cache", False)),
        "exclude_unset": bool(script.get("exclude_unset", False)),
        "steps": steps,
    }


def _check_call(c: dict, where: str) -> None:
    if not isinstance(c.get("name"), str):
        raise BadInput(f'{where}: needs a string "name"')
    _obj(c.get("arguments"), f'{where}: "arguments"')


async def call_tool(client: Any, c: dict) -> Any:
    progress: list[dict] = []
    cb = None
    if c.get("progress"):

        async def cb(p: float, total: float | None, message: str | None) -> None:
            n: dict[str, Any] = {"progress": p}
            if total is not None:
                n["total"] = total
            if message is not None:
                n["message"] = message
            progress.append(n)

    try:
        res = await client.call_tool(c["name"], c.get("arguments") or {}, progress_callback=cb, meta=c.get("meta"))
        out = dump(res)
    except Exception as e:  # noqa: BLE001 - every failure is reported, never raised
        out = error_obj(e)
    if c.get("progress"):
        out["progress_notifications"] = progress
    return out


async def run_step(client: Any, st: dict) -> Any:
    op = st["op"]
    try:
        if op == "list_tools":
            return dump(await client.list_tools())
        if op == "list_resources":
            return dump(await client.list_resources())
        if op == "list_resource_templates":
            return dump(await client.list_resource_templates())
        if op == "list_prompts":
            return dump(await client.list_prompts())
        if op == "read_resource":
            return dump(await client.read_resource(st["uri"]))
        if op == "call_tool":
            return await call_tool(client, st)
        if op == "concurrent_calls":
            return list(await asyncio.gather(*(call_tool(client, c) for c in st["calls"])))
        if op == "sleep":
            await asyncio.sleep(st["seconds"])
            return {"slept": st["seconds"]}
    except Exception as e:  # noqa: BLE001
        return error_obj(e)
    raise AssertionError(op)


async def run(cfg: dict) -> tuple[int, dict]:
    from mcp import Client, StdioServerParameters

    global EXCLUDE_UNSET
    EXCLUDE_UNSET = cfg["exclude_unset"]

    params = StdioServerParameters(
        command=cfg["command"][0],
        args=cfg["command"][1:],
        env=dict(os.environ) | cfg["env"],
        cwd=cfg["cwd"],
    )
    notifications: list[dict] = []

    async def on_message(msg: Any) -> None:
        if isinstance(msg, Exception):
            notifications.append({"transport_error": error_obj(msg)["error"]})
            return
        d = dump(getattr(msg, "root", msg))
        notifications.append(d if isinstance(d, dict) else {"repr": repr(d)})

    kwargs: dict[str, Any] = {"mode": cfg["mode"], "read_timeout_seconds": cfg["timeout"], "message_handler": on_message}
    if not cfg["cache"]:
        kwargs["cache"] = None
    out: dict[str, Any] = {"protocol_version": None, "steps": []}
    try:
        async with Client(params, **kwargs) as client:
            out["protocol_version"] = client.protocol_version
            out["server_info"] = dump(client.server_info)
            out["server_capabilities"] = dump(client.server_capabilities)
            for st in cfg["steps"]:
                out["steps"].append(await run_step(client, st))
    except BaseException as e:  # noqa: BLE001
        if isinstance(unwrap(e), KeyboardInterrupt):
            raise
        if out["protocol_version"] is None:
            out.update(error_obj(e))
            out["notifications"] = notifications
            return 1, out
        # failure while closing the session: keep the step results, note the error
        out["close_error"] = error_obj(e)["error"]
    out["notifications"] = notifications
    return 0, out


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0] in ("-h", "--help")):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        src = argv[0] if argv else "-"
        text = sys.stdin.read() if src == "-" else open(src, encoding="utf-8").read()
        cfg = validate(json.loads(text))
    except (OSError, ValueError, BadInput) as e:
        print(f"pyclient: bad input: {e}", file=sys.stderr)
        return 2
    rc, out = asyncio.run(run(cfg))
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
