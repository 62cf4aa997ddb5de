"""A minimal LSP client for lsp.test: starts the server given on the command line, opens a
document (an .mlir file), and prints what the server answers, one line each:
`diagnostic <line>: <message>` for every diagnostic it publishes, `hover: <text>` for a hover
request at the position given by `--hover LINE:COLUMN` (0-based, LSP's)."""

import json
import subprocess
import sys


def send(proc, message):
    body = json.dumps(message).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive(proc):
    length = None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def main():
    server, document = sys.argv[1], sys.argv[2]
    line, column = (int(x) for x in sys.argv[4].split(":")) if len(sys.argv) > 4 else (0, 0)
    uri = "file://" + document
    text = open(document).read()
    proc = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    while receive(proc).get("id") != 1:
        pass
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "mlir", "version": 1,
                                            "text": text}}})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri},
                           "position": {"line": line, "character": column}}})
    seen_diagnostics = seen_hover = False
    while not (seen_diagnostics and seen_hover):
        message = receive(proc)
        if message.get("method") == "textDocument/publishDiagnostics":
            for d in message["params"]["diagnostics"]:
                print("diagnostic %d: %s" % (d["range"]["start"]["line"] + 1, d["message"]))
            seen_diagnostics = True
        elif message.get("id") == 2:
            result = message.get("result") or {}
            contents = result.get("contents", {})
            value = contents.get("value", "") if isinstance(contents, dict) else str(contents)
            print("hover: " + " ".join(value.split()))
            seen_hover = True
    send(proc, {"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    receive(proc)
    send(proc, {"jsonrpc": "2.0", "method": "exit"})
    proc.wait(timeout=10)


if __name__ == "__main__":
    main()
