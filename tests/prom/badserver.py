# A fake Prometheus HTTP API for tests/prom/run.sh.  The first path segment
# picks the behaviour; every request is logged as "GET PATH auth=HEADER".
#   badserver.py PORT [CERT KEY]     (with CERT and KEY: https)
#   ok      two GPUs of gputally's names; GPU 1's power has NaN, +Inf and "abc"
#   notprom an HTML page for everything
#   e404    404 for everything
#   apierr  a Prometheus error answer (400) for everything
#   trunc   good discovery, the data query cut in the middle of the JSON
#   e503    good discovery, the data query always 503
#   flaky   good discovery, each data query 503 on its first try
#   huge    an endless body
#   slow    a body that trickles a byte a second
#   redir   302 to another host
#   offstep good discovery, samples outside the range asked for
# The data query is a range selector at one time, as gputally asks it:
# /api/v1/query?query=NAME[Dms]&time=T (samples 10 s apart in (T - D, T]).
import json
import re, sys, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAMES = ["gputally_gpu_utilization_percent", "gputally_gpu_power_watts"]
seen = set()
OFFSTEP = [False]


def labels(name, gpu):
    return {"__name__": name, "gpu": str(gpu), "uuid": "GPU-bad0000%d" % gpu, "name": "Fake",
            "host": "fakehost", "instance": "127.0.0.1:1", "job": "x"}


def matrix(q):
    m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\[(\d+)ms\]$", q["query"][0])
    name, rng, step = m.group(1), int(m.group(3)) / 1000.0, 10.0
    t1 = float(q["time"][0])
    t0 = t1 - rng + step
    if OFFSTEP[0]:   # a server that answers for another time than asked
        t0, t1 = t0 + rng + 100, t1 + rng + 100
    res = []
    for gpu in (0, 1):
        vals, t, k = [], t0, 0
        while t <= t1 + 1e-9:
            v = "50" if "util" in name else "200"
            if name.endswith("power_watts") and gpu == 1 and k in (3, 4, 5):
                v = ["NaN", "+Inf", "abc"][k - 3]
            vals.append([round(t, 3), v])
            t += step
            k += 1
        res.append({"metric": labels(name, gpu), "values": vals})
    return {"status": "success", "data": {"resultType": "matrix", "result": res}}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="application/json"):
        b = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        print("GET %s auth=%s" % (u.path, self.headers.get("Authorization", "-")), flush=True)
        parts = u.path.split("/", 2)
        mode, rest = parts[1], "/" + (parts[2] if len(parts) > 2 else "")
        if mode == "notprom":
            return self.send(200, "<html><body>hello</body></html>", "text/html")
        if mode == "e404":
            return self.send(404, "404 page not found", "text/plain")
        if mode == "apierr":
            return self.send(400, json.dumps({"status": "error", "errorType": "bad_data",
                                              "error": "invalid parameter \"match[]\": parse error"}))
        if mode == "redir":
            self.send_response(302)
            self.send_header("Location", "http://elsewhere.invalid/api/v1/series")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            chunk = b" " * (1 << 20)
            try:
                self.wfile.write(b'{"status":"success","data":[')
                for _ in range(1024):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if mode == "slow":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass
            self.close_connection = True
            return
        if rest == "/api/v1/targets":
            return self.send(200, json.dumps({"status": "success", "data": {"activeTargets": [
                {"scrapeInterval": "10s"}]}}))
        if rest == "/api/v1/series":
            return self.send(200, json.dumps({"status": "success", "data": [
                labels(n, g) for n in NAMES for g in (0, 1)]}))
        if rest == "/api/v1/query":
            OFFSTEP[0] = mode == "offstep"
            if mode == "trunc":
                return self.send(200, json.dumps(matrix(q))[:300])
            if mode == "e503":
                return self.send(503, "unavailable", "text/plain")
            if mode == "flaky" and self.path not in seen:
                seen.add(self.path)
                return self.send(503, "unavailable", "text/plain")
            return self.send(200, json.dumps(matrix(q)))
        return self.send(404, "404 page not found", "text/plain")


ThreadingHTTPServer.daemon_threads = True
srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
if len(sys.argv) > 3:   # CERT KEY: serve https
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[2], sys.argv[3])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
