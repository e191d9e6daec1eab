"""A stand-in for vLLM Semantic Router on 127.0.0.1, answering its route preview
(`POST /api/v1/routing/preview`) in the documented shape — `decision_result`,
`signal_confidences`, `matched_signals` — from keyword signals, so the `vsr` router of
routers.toml can be tried without a GPU. `--latency-ms` holds each answer back.

    python examples/routers/demo_server.py --port 8801 [--latency-ms 50]

It serves as a production server does — HTTP/1.1 keep-alive, Nagle off, a listen backlog of
256 — and prints where it listens (`--port 0`: a free port). `--close --backlog 5` makes it
Python's `http.server` as it comes: every answer closes its connection and five connects queue
at most, so that a router at concurrency 8 has connects dropped and retried a second later
(`make bench` measures both).
"""

from __future__ import annotations

import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SIGNALS = {
    "economics": ("inflation", "price", "market", "recession"),
    "computer_science": ("python", "code", "bug", "api", "install"),
    "local": ("near me", "nearby", "open now"),
}


def preview(text: str) -> dict[str, object]:
    lowered = text.lower()
    matched = {name: [w for w in words if w in lowered] for name, words in SIGNALS.items()}
    confidences = {
        f"keyword:{word}": round(0.6 + 0.1 * len(words), 2)
        for words in matched.values()
        for word in words
    }
    best = max(matched, key=lambda name: len(matched[name]))
    decision = best if matched[best] else "general"
    return {
        "decision_result": {
            "decision_name": decision,
            "confidence": round(min(0.99, 0.5 + 0.2 * len(matched[best])), 2),
        },
        "signal_confidences": confidences,
        "matched_signals": {"keywords": [w for words in matched.values() for w in words]},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8801)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--backlog", type=int, default=256)
    parser.add_argument("--close", action="store_true", help="close every connection (HTTP/1.0)")
    args = parser.parse_args()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0" if args.close else "HTTP/1.1"
        disable_nagle_algorithm = not args.close  # headers and body are two writes

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if args.latency_ms:
                time.sleep(args.latency_ms / 1000)
            payload = json.dumps(preview(str(body.get("text", "")))).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = args.backlog

    server = Server(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
