#!/usr/bin/env python3
"""http_attack.py -- slow and greedy HTTP clients against the bridge, with
probes measured while they run.  Used by tests/integration/http_slow_clients.sh
and http_greedy_readers.sh; loopback only.

Attackers (MODE):
  slow-headers  a request line, then one header line every --interval seconds,
                never the blank line that ends the headers (slowloris)
  tls-stall     the first 11 bytes of a TLS ClientHello, then nothing
  slow-body     a POST announcing a 100000-byte body, one byte per --interval
  greedy        GET /metrics with a 4 KiB receive buffer, never read
  none          no attacker: the probes alone (a baseline)

Each attacker connects from an address of --from (127.0.0.2, or
127.0.0.10+32 for 32 addresses from 127.0.0.10 on, one per attacker in turn).
An attacker the server closes connects again after --reconnect seconds
(never in greedy mode, which cannot see a close without reading).  With
--stagger S, attacker i first connects S*i seconds after the start.

Meanwhile a probe GETs each path of --probe from --probe-from every
--probe-every seconds on a new connection, reads the whole answer, and records
its status and time.  Output: one "key value" line per figure:
  probes, probe_failures, probe_max_ms, probe_statuses
  attack_connects, attack_closed, attack_life_max_ms (of those the server closed),
  attack_open_max (most connections open at once that are older than 1 s),
  rss_start_kb, rss_max_kb (with --pid)
"""
import argparse
import ipaddress
import os
import select
import socket
import ssl
import sys
import threading
import time

CLIENT_HELLO_START = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])


def sources(spec):
    if "+" in spec:
        first, count = spec.split("+")
        base = ipaddress.IPv4Address(first)
        return [str(base + i) for i in range(int(count))]
    return spec.split(",")


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Attacker:
    def __init__(self, args, src):
        self.args, self.src = args, src
        self.sock, self.opened, self.next_send, self.sent = None, 0.0, 0.0, 0

    def connect(self, now):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.args.mode == "greedy":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((self.src, 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", self.args.port))
        s.setblocking(False)
        self.sock, self.opened, self.sent = s, now, 0
        self.send_first()
        self.next_send = now + self.args.interval

    def send_first(self):
        mode = self.args.mode
        if mode == "slow-headers":
            self.sock.send(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        elif mode == "tls-stall":
            self.sock.send(CLIENT_HELLO_START)
        elif mode == "slow-body":
            self.sock.send(b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Length: 100000\r\n\r\n")
        elif mode == "greedy":
            self.sock.send(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

    def trickle(self, now):
        if now < self.next_send or self.args.mode not in ("slow-headers", "slow-body"):
            return
        self.next_send = now + self.args.interval
        self.sent += 1
        data = b"X-Slow-%d: x\r\n" % self.sent if self.args.mode == "slow-headers" else b"x"
        try:
            self.sock.send(data)
        except OSError:
            pass   # seen as closed at the next read

    def closed_by_server(self):
        """Drain what the server sent; True once it closed the connection."""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return True
        except BlockingIOError:
            return False
        except OSError:
            return True


def run_attack(args, stats, stop):
    srcs = sources(args.sources)
    attackers = [Attacker(args, srcs[i % len(srcs)]) for i in range(args.attackers)]
    t0 = time.monotonic()
    pending = {a: t0 + i * args.stagger for i, a in enumerate(attackers)}  # when to (re)connect
    while not stop.is_set():
        now = time.monotonic()
        for a in [a for a, t in pending.items() if t <= now]:
            del pending[a]
            try:
                a.connect(now)
                stats["attack_connects"] += 1
            except OSError:
                pending[a] = now + args.reconnect
        live = [a for a in attackers if a.sock and a not in pending]
        for a in live:
            a.trickle(now)
        old = sum(1 for a in live if now - a.opened > 1.0)
        stats["attack_open_max"] = max(stats["attack_open_max"], old)
        readable = []
        if live and args.mode != "greedy":
            readable, _, _ = select.select([a.sock for a in live], [], [], 0.05)
        else:
            time.sleep(0.05)
        for a in live:
            if a.sock in readable and a.closed_by_server():
                life = (time.monotonic() - a.opened) * 1000
                stats["attack_closed"] += 1
                stats["attack_life_max_ms"] = max(stats["attack_life_max_ms"], int(life))
                a.sock.close()
                a.sock = None
                pending[a] = time.monotonic() + args.reconnect
    for a in attackers:
        if a.sock:
            a.sock.close()


def probe_once(args, path):
    t0 = time.monotonic()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(args.probe_timeout)
    try:
        s.bind((args.probe_from, 0))
        s.connect(("127.0.0.1", args.port))
        if args.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(s)
        s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path.encode())
        chunks = []
        while True:
            data = s.recv(1 << 20)
            if not data:
                break
            chunks.append(data)
        head = b"".join(chunks[:1])[:12]
        status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.") else "none"
    except (OSError, ssl.SSLError, IndexError) as e:
        status = "error:" + type(e).__name__
    finally:
        s.close()
    return status, (time.monotonic() - t0) * 1000


def run_probes(args, stats, stop):
    paths = args.probe.split(",") if args.probe else []
    while not stop.wait(args.probe_every):
        for path in paths:
            status, ms = probe_once(args, path)
            stats["probes"] += 1
            stats["probe_max_ms"] = max(stats["probe_max_ms"], int(ms))
            stats["statuses"].add(path + "=" + status)
            if status != "200":
                stats["probe_failures"] += 1
                print("probe %s: %s after %d ms" % (path, status, ms), file=sys.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["slow-headers", "tls-stall", "slow-body", "greedy", "none"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--attackers", type=int, default=32)
    p.add_argument("--from", dest="sources", default="127.0.0.2")
    p.add_argument("--interval", type=float, default=1.0)
    p.add_argument("--reconnect", type=float, default=0.5)
    p.add_argument("--stagger", type=float, default=0.0)
    p.add_argument("--duration", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=1.0, help="attack alone before probing")
    p.add_argument("--probe", default="/healthz,/metrics")
    p.add_argument("--probe-from", default="127.0.0.1")
    p.add_argument("--probe-every", type=float, default=0.25)
    p.add_argument("--probe-timeout", type=float, default=10.0)
    p.add_argument("--tls", action="store_true")
    p.add_argument("--pid", type=int, default=0)
    args = p.parse_args()

    stats = dict(probes=0, probe_failures=0, probe_max_ms=0, statuses=set(), attack_connects=0,
                 attack_closed=0, attack_life_max_ms=0, attack_open_max=0)
    stop_attack, stop_probes = threading.Event(), threading.Event()
    attack = threading.Thread(target=run_attack, args=(args, stats, stop_attack))
    probes = threading.Thread(target=run_probes, args=(args, stats, stop_probes))
    rss_start = rss_kb(args.pid) if args.pid else 0
    rss_max = rss_start
    if args.mode != "none":
        attack.start()
    t_end = time.monotonic() + args.duration
    time.sleep(args.warmup)
    probes.start()
    while time.monotonic() < t_end:
        time.sleep(0.1)
        if args.pid:
            rss_max = max(rss_max, rss_kb(args.pid))
    stop_probes.set()
    probes.join()
    stop_attack.set()
    if args.mode != "none":
        attack.join()
    for key in ("probes", "probe_failures", "probe_max_ms", "attack_connects", "attack_closed",
                "attack_life_max_ms", "attack_open_max"):
        print(key, stats[key])
    print("probe_statuses", " ".join(sorted(stats["statuses"])))
    if args.pid:
        print("rss_start_kb", rss_start)
        print("rss_max_kb", rss_max)


if __name__ == "__main__":
    main()
