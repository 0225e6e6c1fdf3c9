#!/usr/bin/env python3
# A local HTTP receiver for the delivery tests: every POST is appended to LOG
# as one JSON line {"path", "headers", "body"}; the first FAIL requests are
# answered 503, and each answer waits DELAY seconds.  Loopback only; it stops
# after LIFE seconds whatever happens.
#   receiver.py PORT LOG [FAIL] [DELAY] [LIFE]
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, log = int(sys.argv[1]), sys.argv[2]
fail = int(sys.argv[3]) if len(sys.argv) > 3 else 0
delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
life = float(sys.argv[5]) if len(sys.argv) > 5 else 120.0
lock = threading.Lock()
seen = [0]

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace")
        with lock:
            seen[0] += 1
            k = seen[0]
            with open(log, "a") as f:
                f.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        time.sleep(delay)
        code = 503 if k <= fail else 200
        try:
            self.send_response(code)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *a):
        pass

srv = ThreadingHTTPServer(("127.0.0.1", port), H)
threading.Timer(life, srv.shutdown).start()
srv.serve_forever()
