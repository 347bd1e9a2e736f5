#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ci/check_monitoring.py PCQDUMP - the Prometheus and Influx outputs of pcqdump --cook against promtool and a
throwaway influxd (see ci/check-monitoring.sh). Standard library only.

Every cook case (the Makefile's check-cli cases, the captures' session handles, the hostile case of
test/cli/monitoring/ under several --set-name values) is written in both formats:
  - promtool check metrics must exit 0 and print nothing (parse and lint clean);
  - every Influx line is written alone with precision=ns and must get HTTP 204; then SELECT * FROM /.*/ (in a
    database of its own per case) must give back exactly the points of the lines, read with line protocol
    1.x's unescaping (measurement, tags, float fields, the time in ns), and as many values as the case has
    rows with status ok in pcqdump --cook --json that --csv shows, once per series.
The influxd started here is stopped by its process id.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
V = os.path.join(TOP, "vectors")
S = os.path.join(TOP, "wireshark", "captures", "session")
M = os.path.join(TOP, "test", "cli", "monitoring")
INFO = os.path.join(V, "counterset-info", "small-raw-fraction-pair.hex")
D2X3 = os.path.join(V, "data", "counterset-2x3.hex")
HOSTILE = ["--info", os.path.join(M, "hostile-info.hex"), "--names", os.path.join(M, "hostile-names.hex"),
           os.path.join(M, "hostile-data-1.hex"), os.path.join(M, "hostile-data-2.hex")]


def session(prefix, ids):
    return ["--info", os.path.join(S, "counterset-info.hex"), "--names", os.path.join(S, "counter-names.hex"),
            "--ids", os.path.join(S, ids), os.path.join(S, prefix + "data-1.hex"), os.path.join(S, prefix + "data-2.hex")]


CASES = [
    ("cook-2x3", ["--info", INFO, D2X3, D2X3]),
    ("cook-path-chars", ["--info", INFO, os.path.join(V, "data", "instance-name-path-chars.hex")]),
    ("cook-names-spec", ["--info", INFO, "--names", os.path.join(V, "strings", "spec-counter-names.hex"), D2X3, D2X3]),
    ("cook-names-win32", ["--info", INFO, "--names", os.path.join(V, "strings", "shared-text.hex"), D2X3, D2X3]),
    ("session", session("", "counter-info.hex") + ["--set-name", "Processor Information"]),
    ("session-guid", session("", "counter-info.hex")),
    ("session-one-sample", session("", "counter-info.hex")[:-2] + [os.path.join(S, "data-2.hex")]),
    ("handle-a", session("handle-a-", "handle-a-counter-info.hex") + ["--set-name", "Processor Information"]),
    ("handle-b", session("handle-b-", "handle-b-counter-info.hex") + ["--set-name", "Processor Information"]),
    ("hostile", HOSTILE + ["--set-name", 'Disk, "Hostile"=Set\\']),
    ("hostile-hash", HOSTILE + ["--set-name", "#comment? no\nline, x=1"]),
    ("hostile-guid", HOSTILE),
    ("hostile-utf8", HOSTILE + ["--set-name", "Ünïcödé ✓ = \\\\"]),
]


def pcqdump(pcq, fmt, args):
    p = subprocess.run([pcq, "--cook", "--hex", "--format", fmt] + args, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("pcqdump --format %s failed: %s" % (fmt, p.stderr.decode("utf-8", "replace")))
    return p.stdout


def expected_points(pcq, args):
    """Values the case must write: rows with status ok that --csv shows, once per (counter, series)."""
    rows = json.loads(pcqdump(pcq, "json", args))["values"]
    info = args[args.index("--info") + 1]
    hidden = hidden_counters(pcq, info)
    seen = set()
    for r in rows:
        if r["status"] != "ok" or r["counter_id"] in hidden:
            continue
        seen.add((r["counter_id"], r.get("aggregate"), r.get("instance"), r.get("dup_index", 0)))
    return len(seen)


def hidden_counters(pcq, info):
    """Counters --csv leaves out: Attrib 0x2 (no display) and the types that have no value of their own."""
    p = subprocess.run([pcq, "--hex", "--json", "--kind", "counterset-info", info], capture_output=True)
    out = set()
    for c in json.loads(p.stdout)["counters"]:
        base = c["type"] & 0x70000000 == 0x40000000 and c["type"] & 0x00030000 == 0x00030000
        if c["attrib"] & 2 or base or c["type"] in (0x00000B00, 0x40000200):
            out.add(c["counter_id"])
    return out


# ---- line protocol 1.x, read as InfluxDB 1.x reads it ----
def split_unescaped(s, seps):
    """Splits s at the first unescaped character of seps (a character after '\\' is escaped)."""
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 2
            continue
        if s[i] in seps:
            return s[:i], s[i], s[i + 1:]
        i += 1
    return s, "", ""


def unescape(s, chars):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in chars:
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse_line(line):
    head, _, rest = split_unescaped(line, " ")
    fields_text, _, ts = split_unescaped(rest, " ")
    parts = []
    while head:
        part, _, head = split_unescaped(head, ",")
        parts.append(part)
    meas = unescape(parts[0], ", ")
    tags = {}
    for p in parts[1:]:
        k, _, v = split_unescaped(p, "=")
        tags[unescape(k, ",= ")] = unescape(v, ",= ")
    fields = {}
    while fields_text:
        f, _, fields_text = split_unescaped(fields_text, ",")
        k, _, v = split_unescaped(f, "=")
        fields[unescape(k, ",= ")] = float(v)
    return meas, tags, fields, int(ts) if ts else None


# ---- influxd ----
def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Influx:
    def __init__(self, tmp):
        self.port = free_port()
        conf = os.path.join(tmp, "influxd.conf")
        with open(conf, "w") as f:
            f.write('reporting-enabled = false\nbind-address = "127.0.0.1:%d"\n[meta]\n  dir = "%s/meta"\n'
                    '[data]\n  dir = "%s/data"\n  wal-dir = "%s/wal"\n  query-log-enabled = false\n'
                    '[monitor]\n  store-enabled = false\n[http]\n  enabled = true\n  bind-address = "127.0.0.1:%d"\n'
                    '  log-enabled = false\n[continuous_queries]\n  enabled = false\n'
                    % (free_port(), tmp, tmp, tmp, self.port))
        self.log = open(os.path.join(tmp, "influxd.log"), "w")
        self.proc = subprocess.Popen(["influxd", "run", "-config", conf], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                if self.request("GET", "/ping")[0] == 204:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("influxd did not answer /ping; its log: %s" % open(os.path.join(tmp, "influxd.log")).read())

    def request(self, method, path, body=None):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=body, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def query(self, db, q):
        st, body = self.request("POST", "/query?" + urllib.parse.urlencode({"db": db, "q": q, "epoch": "ns"}))
        if st != 200:
            raise RuntimeError("query %r: HTTP %d %s" % (q, st, body))
        return json.loads(body)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()   # the influxd this script started, by its pid
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def ident(name):
    """An InfluxQL double-quoted identifier."""
    return '"%s"' % name.replace("\\", "\\\\").replace('"', '\\"')


def stored_points(influx, db):
    got = set()
    res = influx.query(db, "SELECT * FROM /.*/")["results"][0]
    for series in res.get("series", []):
        keys = influx.query(db, "SHOW TAG KEYS FROM %s" % ident(series["name"]))["results"][0].get("series", [])
        tag_keys = {v[0] for v in keys[0]["values"]} if keys else set()
        for row in series["values"]:
            rec = dict(zip(series["columns"], row))
            tags = frozenset((k, rec[k]) for k in tag_keys if rec.get(k) is not None)
            for k, v in rec.items():
                if k != "time" and k not in tag_keys and v is not None:
                    got.add((series["name"], rec["time"], tags, k, float(v)))
    return got


def check_influx(influx, name, text, want_values):
    db = "pcq_%s" % name.replace("-", "_")
    influx.query("", "DROP DATABASE %s" % db)
    influx.query("", "CREATE DATABASE %s" % db)
    written = set()
    for line in text.decode("utf-8").splitlines():
        st, body = influx.request("POST", "/write?" + urllib.parse.urlencode({"db": db, "precision": "ns"}),
                                  line.encode("utf-8"))
        if st != 204:
            return "HTTP %d for line %r: %s" % (st, line, body.decode("utf-8", "replace"))
        meas, tags, fields, ts = parse_line(line)
        if ts is None:
            return "a line without time: %r" % line
        for k, v in fields.items():
            written.add((meas, ts, frozenset(tags.items()), k, v))
    got = stored_points(influx, db)
    if got != written:
        return "read back differs: written but not stored %s; stored but not written %s" % (
            sorted(written - got, key=repr)[:3], sorted(got - written, key=repr)[:3])
    if len(written) != want_values:
        return "%d values written, %d rows expected" % (len(written), want_values)
    return None


def main():
    pcq = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "pcqdump"))
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="pcq-monitoring.")
    influx = None
    try:
        for name, args in CASES:   # promtool
            text = pcqdump(pcq, "prometheus", args)
            p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True)
            if p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip() and text.strip():
                passed += 1
            else:
                failed += 1
                print("FAIL: promtool check metrics on %s: exit %d %s%s" % (
                    name, p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")))
        influx = Influx(tmp)
        for name, args in CASES:
            why = check_influx(influx, name, pcqdump(pcq, "influx", args), expected_points(pcq, args))
            if why:
                failed += 1
                print("FAIL: influx %s: %s" % (name, why))
            else:
                passed += 1
    except Exception as e:   # a harness failure counts, and says why
        failed += 1
        print("FAIL: %r" % e)
    finally:
        if influx:
            influx.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("check-monitoring: %d cases, promtool and influxd %s" % (len(CASES), subprocess.run(
        ["influxd", "version"], capture_output=True).stdout.decode().strip()))
    print("monitoring-tools: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
