#!/usr/bin/env python3
"""An agent host in Python (standard library only) that uses mcp-bridge through either of its faces.

    python3 host.py --rest http://127.0.0.1:8808 [--call NAME JSON ...]
    python3 host.py --stdio [COMMAND ...] [--call NAME JSON ...]

It lists the tools, builds a Python function for each from its input schema (a signature with the
parameters' types, defaults and enums, a docstring, and argument checks before anything is sent),
calls the tools named with --call, and shows the status of the upstream servers.

--rest URL speaks the REST face of `mcp-bridge serve --http`: GET /tools?format=mcp, POST /tools/NAME,
GET /status (with the admin token). Tokens come from MCP_BRIDGE_TOKEN and MCP_BRIDGE_ADMIN_TOKEN.

--stdio COMMAND... starts an MCP server and speaks newline-delimited JSON-RPC on its stdin and stdout:
`mcp-bridge attach` (one shared fleet of upstream servers) or `mcp-bridge serve --stdio`. Without a
command, MCP_BRIDGE_COMMAND (split like a shell would) or `mcp-bridge serve --stdio`.
"""

import argparse
import inspect
import json
import keyword
import os
import queue
import re
import shlex
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

PROTOCOL_VERSION = "2025-11-25"
STATUS_URI = "mcp-bridge://status"
DEFAULT_COMMAND = ["mcp-bridge", "serve", "--stdio"]
REQUEST_TIMEOUT = 60.0
JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


class GatewayError(Exception):
    """The gateway (or the server behind it) refused a request: HTTP status or JSON-RPC code, and why."""

    def __init__(self, status, code, message, retry_after=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry_after = retry_after


class ArgumentError(Exception):
    """Arguments the host refused before sending them: they do not fit the tool's schema."""


# ---------------------------------------------------------------------------------------------------
# The REST face: plain HTTP and JSON.


class RestFace:
    def __init__(self, base, token=None, admin_token=None):
        self.base = base.rstrip("/")
        self.token = token
        self.admin_token = admin_token

    def _request(self, method, path, body=None, token=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("accept", "application/json")
        if data is not None:
            request.add_header("content-type", "application/json")
        if token:
            request.add_header("authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as failure:
            # Every failure of the REST face is JSON: {"error": {"code", "message"}}.
            try:
                error = json.loads(failure.read().decode("utf-8")).get("error", {})
            except ValueError:
                error = {}
            retry_after = failure.headers.get("retry-after")
            raise GatewayError(
                failure.code,
                error.get("code", "HTTP_%d" % failure.code),
                error.get("message", failure.reason),
                int(retry_after) if retry_after and retry_after.isdigit() else None,
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as failure:
            # Not reachable, or not the gateway: no answer of the REST face to show.
            reason = getattr(failure, "reason", failure)
            raise GatewayError(None, "UNREACHABLE", "%s%s: %s" % (self.base, path, reason)) from None

    def list_tools(self):
        return self._request("GET", "/tools?format=mcp", token=self.token)["tools"]

    def call(self, name, arguments):
        quoted = urllib.parse.quote(name, safe="")
        return self._request("POST", "/tools/" + quoted, arguments, token=self.token)

    def status(self):
        if not self.admin_token:
            return None
        return self._request("GET", "/status", token=self.admin_token)

    def close(self):
        pass


# ---------------------------------------------------------------------------------------------------
# MCP over stdio: one JSON-RPC message per line, each way.


class StdioFace:
    def __init__(self, command):
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
            )
        except OSError as failure:
            raise GatewayError(None, "SPAWN", "cannot start %s: %s" % (command[0], failure)) from None
        self.next_id = 0
        self.pending = {}
        self.ended = False
        self.lock = threading.Lock()
        self.changed = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "python-host", "version": "1.0.0"},
            },
        )
        self.server_info = result.get("serverInfo", {})
        self.notify("notifications/initialized")

    def _send(self, message):
        line = json.dumps(message, separators=(",", ":")) + "\n"
        try:
            with self.lock:
                self.process.stdin.write(line.encode("utf-8"))
                self.process.stdin.flush()
        except OSError:
            raise GatewayError(None, "CLOSED", "the server has stopped reading (exited?)") from None

    def _read(self):
        for raw in self.process.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if "id" in message and ("result" in message or "error" in message):
                waiting = self.pending.pop(message["id"], None)
                if waiting is not None:
                    waiting.put(message)
            elif "id" in message and "method" in message:
                # A request of the server's own: answer ping, decline what this host does not offer.
                if message["method"] == "ping":
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
                else:
                    error = {"code": -32601, "message": "Method not found: " + message["method"]}
                    self._send({"jsonrpc": "2.0", "id": message["id"], "error": error})
            elif str(message.get("method", "")).endswith("/list_changed"):
                self.changed.set()
        with self.lock:
            self.ended = True
            waiting_all = list(self.pending.values())
        for waiting in waiting_all:
            waiting.put({"error": {"code": "CLOSED", "message": "the server closed its stdout (exited?)"}})

    def request(self, method, params):
        answer = queue.Queue(maxsize=1)
        with self.lock:
            if self.ended:
                raise GatewayError(None, "CLOSED", "the server closed its stdout (exited?)")
            self.next_id += 1
            request_id = self.next_id
            self.pending[request_id] = answer
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            message = answer.get(timeout=REQUEST_TIMEOUT)
        except queue.Empty:
            self.pending.pop(request_id, None)
            raise GatewayError(None, "TIMEOUT", "%s got no answer in %ds" % (method, REQUEST_TIMEOUT))
        if "error" in message:
            error = message["error"]
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            raise GatewayError(None, error.get("code"), error.get("message", ""), data.get("retryAfterSeconds"))
        return message["result"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def list_tools(self):
        tools, cursor = [], None
        while True:
            page = self.request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                return tools

    def call(self, name, arguments):
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def status(self):
        read = self.request("resources/read", {"uri": STATUS_URI})
        return json.loads(read["contents"][0]["text"])

    def close(self):
        # Closing stdin ends the server; a server that lingers is stopped.
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---------------------------------------------------------------------------------------------------
# Tool wrappers built from the input schemas.

_UNSET = object()


def type_of(spec):
    """A parameter's type as shown: its enum values, else its JSON type(s), else `any`."""
    if isinstance(spec.get("enum"), list):
        return "|".join(json.dumps(value) for value in spec["enum"])
    kind = spec.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    return str(kind) if kind else "any"


def fits(value, spec):
    """Whether `value` has the parameter's JSON type (a bool is no number, an int is a number)."""
    kinds = spec.get("type")
    kinds = [kind for kind in (kinds if isinstance(kinds, list) else [kinds]) if isinstance(kind, str)]
    if not kinds:
        return True
    for kind in kinds:
        if kind in ("integer", "number") and isinstance(value, bool):
            continue
        if kind == "integer" and isinstance(value, float) and value.is_integer():
            return True
        if kind == "number" and isinstance(value, (int, float)):
            return True
        if isinstance(value, JSON_TYPES.get(kind, object)):
            return True
    return False


def python_name(wire, taken):
    """A parameter name Python accepts for a property name (`from` -> `from_`, `a-b` -> `a_b`), unique."""
    name = re.sub(r"\W", "_", wire)
    if not name or name[0].isdigit():
        name = "_" + name
    while keyword.iskeyword(name) or name in taken:
        name += "_"
    return name


def make_tool(face, tool):
    """A Python function that checks its arguments against the tool's schema, then calls the tool."""
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    properties = {wire: spec if isinstance(spec, dict) else {} for wire, spec in properties.items()}
    required = set(schema.get("required") or [])
    wire_names, parameters, docs = {}, [], []
    for wire, spec in properties.items():
        name = python_name(wire, wire_names)
        wire_names[name] = wire
        default = inspect.Parameter.empty if wire in required else spec.get("default", _UNSET)
        annotation = JSON_TYPES.get(spec.get("type"), object) if isinstance(spec.get("type"), str) else object
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
        facts = [type_of(spec), "required" if wire in required else None]
        if "default" in spec:
            facts.append("default " + json.dumps(spec["default"]))
        docs.append("    %s (%s): %s" % (name, ", ".join(f for f in facts if f), spec.get("description", "")))
    signature = inspect.Signature(parameters)

    def call(**kwargs):
        for name in kwargs:
            if name not in wire_names and properties:
                raise ArgumentError("unexpected argument %s" % json.dumps(name))
        for name, wire in wire_names.items():
            if wire in required and name not in kwargs:
                raise ArgumentError("missing required argument %s" % json.dumps(wire))
        try:
            bound = signature.bind(**kwargs)
        except TypeError as problem:
            raise ArgumentError(str(problem)) from None
        bound.apply_defaults()
        arguments = {}
        for name, value in bound.arguments.items():
            if value is _UNSET:
                continue
            wire, spec = wire_names[name], properties[wire_names[name]]
            if isinstance(spec.get("enum"), list) and value not in spec["enum"]:
                raise ArgumentError("argument %s must be one of %s" % (json.dumps(wire), type_of(spec)))
            if not fits(value, spec):
                raise ArgumentError("argument %s must be of type %s" % (json.dumps(wire), type_of(spec)))
            arguments[wire] = value
        return face.call(tool["name"], arguments)

    call.__name__ = python_name(tool["name"], {})
    call.parameter_for = {wire: name for name, wire in wire_names.items()}
    call.__signature__ = signature
    call.__doc__ = (tool.get("description") or "") + ("\n\nArgs:\n" + "\n".join(docs) if docs else "")
    call.tool = tool
    return call


def shown_signature(tool):
    """`name(a: number, unit: "c"|"f" = "c", tags?: array)`: required, defaulted, optional."""
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or [])
    shown = []
    for wire, spec in properties.items():
        spec = spec if isinstance(spec, dict) else {}
        if wire in required:
            shown.append("%s: %s" % (wire, type_of(spec)))
        elif "default" in spec:
            shown.append("%s: %s = %s" % (wire, type_of(spec), json.dumps(spec["default"])))
        else:
            shown.append("%s?: %s" % (wire, type_of(spec)))
    return "%s(%s)" % (tool["name"], ", ".join(shown))


# ---------------------------------------------------------------------------------------------------
# What the host shows. Server text is stripped of control characters before it reaches the terminal.

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def compact(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def clean(text):
    return _CONTROL.sub("", str(text))


def result_text(result):
    parts = []
    for block in result.get("content") or []:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append("[%s %s]" % (block.get("type"), block.get("mimeType", block.get("uri", ""))))
    if not parts and result.get("structuredContent") is not None:
        parts.append(compact(result["structuredContent"]))
    return "\n".join(parts)


def show_tools(tools):
    print("tools (%d):" % len(tools))
    for tool in tools:
        print("  " + clean(shown_signature(tool)))
        description = (tool.get("description") or "").strip().splitlines()
        if description:
            print("      " + clean(description[0]))


def show_call(wrappers, name, arguments):
    print("call %s %s" % (name, compact(arguments)))
    wrapper = wrappers.get(name)
    if wrapper is None:
        print("  refused (host): no tool named %s" % name)
        return
    try:
        # The wrapper's parameters are Python names; the JSON arguments use the schema's names.
        result = wrapper(**{wrapper.parameter_for.get(key, key): value for key, value in arguments.items()})
    except ArgumentError as problem:
        print("  refused (host): " + clean(problem))
        return
    except GatewayError as problem:
        status = problem.status if problem.status is not None else "JSON-RPC %s" % problem.code
        after = " (retry after %s s)" % problem.retry_after if problem.retry_after else ""
        print("  refused (%s %s): %s%s" % (status, problem.code, clean(problem), after))
        return
    label = "error: " if result.get("isError") else "-> "
    print("  " + label + clean(result_text(result)).replace("\n", "\n     "))
    if result.get("structuredContent") is not None:
        print("     structured: " + clean(compact(result["structuredContent"])))


def show_status(status):
    if status is None:
        print("status: not shown (the REST face needs the admin token: MCP_BRIDGE_ADMIN_TOKEN)")
        return
    print("status:")
    for server in status.get("servers", []):
        line = "  %s: %s, %d tools" % (server["name"], server["state"], server.get("toolCount", 0))
        if server.get("lastError"):
            line += " - %s: %s" % (server["lastError"]["code"], server["lastError"]["message"])
        print(clean(line))


def settle(face, seconds):
    """Waits (bounded) while an upstream server is still connecting: the gateway answers at once."""
    deadline = time.monotonic() + seconds
    while True:
        status = face.status()
        busy = status is not None and any(s["state"] == "connecting" for s in status.get("servers", []))
        if not busy or time.monotonic() >= deadline:
            return
        time.sleep(0.2)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    face_group = parser.add_mutually_exclusive_group(required=True)
    face_group.add_argument("--rest", metavar="URL", help="base URL of `mcp-bridge serve --http`")
    face_group.add_argument(
        "--stdio", nargs=argparse.REMAINDER, metavar="COMMAND", help="an MCP server command (last option)"
    )
    parser.add_argument("--call", nargs=2, action="append", default=[], metavar=("NAME", "JSON"))
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait for connecting servers")
    options = parser.parse_args(argv)

    face = None
    try:
        if options.rest is not None:
            token, admin = os.environ.get("MCP_BRIDGE_TOKEN"), os.environ.get("MCP_BRIDGE_ADMIN_TOKEN")
            face = RestFace(options.rest, token, admin)
        else:
            command = options.stdio or shlex.split(os.environ.get("MCP_BRIDGE_COMMAND", "")) or DEFAULT_COMMAND
            face = StdioFace(command)
        settle(face, options.settle)
        tools = face.list_tools()
        show_tools(tools)
        wrappers = {tool["name"]: make_tool(face, tool) for tool in tools}
        for name, arguments in options.call:
            show_call(wrappers, name, json.loads(arguments))
        show_status(face.status())
    except GatewayError as problem:
        print("mcp-bridge failed: %s (%s)" % (clean(problem), problem.code), file=sys.stderr)
        return 1
    finally:
        if face is not None:
            face.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
