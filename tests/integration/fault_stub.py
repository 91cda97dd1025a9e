#!/usr/bin/env python3
"""fault_stub.py -- an HTTP source that misbehaves on demand, for the fault
tests and the benchmark: a kubelet on 127.0.0.1 and/or a dockerd on a unix
socket, serving recorded responses until told otherwise.

  fault_stub.py --dir DIR --mode-file FILE [--port-file FILE] [--unix PATH]
                [--auth-log FILE]

A request for /a/b (query ignored) is answered with the file DIR/a/b (404
when absent); /events is answered with chunked headers and then held open, as
dockerd's event stream is.  Before each answer the first word of MODE-FILE
(re-read every time; "ok" when missing) says how to behave:
  ok       serve the file
  stall    read the request, never answer, keep the connection open
  garbage  serve the first half of the file (JSON cut mid-way) and, after
           it, bytes that are not JSON at all
  close    read the request and close without a word
With --port-file it listens on 127.0.0.1 on a free port and writes the port
there; with --unix it listens on that unix socket.  With --auth-log, the
Authorization header of each request is appended to FILE (so a test can tell
that a credential was sent).  It runs until killed.
"""
import argparse
import os
import socket
import threading
import time

held = []   # stalled connections stay referenced (and open) for ever


def mode(path):
    try:
        with open(path) as f:
            return (f.read().split() or ["ok"])[0]
    except OSError:
        return "ok"


def read_request(conn, auth_log=None):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
        if len(data) > 65536:
            return None
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    if auth_log:
        for h in head[1:]:
            if h.lower().startswith("authorization:"):
                with open(auth_log, "a") as f:
                    f.write(h.split(":", 1)[1].strip() + "\n")
    line = head[0].split()
    return line[1].split("?", 1)[0] if len(line) >= 2 else "/"


def respond(conn, status, body, extra=""):
    head = ("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
            % (status, "OK" if status == 200 else "Not Found", len(body), extra))
    conn.sendall(head.encode() + body)


def serve(conn, a):
    try:
        while True:
            path = read_request(conn, a.auth_log)
            if path is None:
                conn.close()
                return
            m = mode(a.mode_file)
            if m == "stall":
                held.append(conn)
                return
            if m == "close":
                conn.close()
                return
            if path == "/events":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n")
                held.append(conn)
                return
            f = os.path.normpath(os.path.join(a.dir, path.lstrip("/")))
            if not f.startswith(os.path.abspath(a.dir)) or not os.path.isfile(f):
                respond(conn, 404, b'{"message":"not found"}')
                continue
            with open(f, "rb") as fh:
                body = fh.read()
            if m == "garbage":
                body = body[: len(body) // 2] + b"\x00\xff}}]]garbage\"\\u12"
            respond(conn, 200, body)
    except OSError:
        conn.close()


def accept_loop(sock, a):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve, args=(conn, a), daemon=True).start()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--mode-file", required=True)
    ap.add_argument("--port-file")
    ap.add_argument("--unix")
    ap.add_argument("--auth-log")
    a = ap.parse_args()
    a.dir = os.path.abspath(a.dir)
    if a.unix:
        try:
            os.unlink(a.unix)
        except OSError:
            pass
        u = socket.socket(socket.AF_UNIX)
        u.bind(a.unix)
        u.listen(64)
        threading.Thread(target=accept_loop, args=(u, a), daemon=True).start()
    if a.port_file:
        t = socket.socket()
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind(("127.0.0.1", 0))
        t.listen(64)
        threading.Thread(target=accept_loop, args=(t, a), daemon=True).start()
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(t.getsockname()[1]))
        os.rename(a.port_file + ".tmp", a.port_file)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
