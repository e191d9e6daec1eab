"""WebReader: pages fetched through the safe fetcher from a loopback server, text extracted;
a refused URL is reported with its rule and never contacted."""

import asyncio
import http.server
import threading
from collections.abc import Iterator, Sequence
from typing import ClassVar

import pytest

from routescope.research._fetch import FetchLimits, SafeFetcher
from routescope.research._policy import WebPolicy
from routescope.research._reader import WebReader

ARTICLE = (
    "<html><head><title>Copying a selection</title></head><body><nav>menu</nav><main><p>"
    + "QTableView selections are copied with the clipboard of QGuiApplication. " * 8
    + "</p></main></body></html>"
)


class _Handler(http.server.BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        body = ARTICLE.encode() if self.path == "/article" else b"<html><body>hi</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    _Handler.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_pages_are_read_refusals_reported_and_never_contacted(port: int) -> None:
    async def resolve(host: str, port_: int) -> Sequence[str]:
        return ["127.0.0.1"]

    policy = WebPolicy(allowed_hosts=(), allowed_ports=(port,), trusted_addresses=("127.0.0.1",))
    reader = WebReader(SafeFetcher(policy, FetchLimits(total_timeout=10), resolver=resolve))
    urls = [
        f"http://docs.test:{port}/article",
        f"http://docs.test:{port}/thin",
        f"http://127.0.0.1:{port}/secret",
    ]
    article, thin, refused = asyncio.run(reader.read(urls))
    assert article.has_text and article.title == "Copying a selection" and article.error is None
    assert "QGuiApplication" in article.text and "menu" not in article.text
    assert not thin.has_text and thin.error == "no main text"
    assert (refused.allowed, refused.rule) == (False, "blocked-host")  # 127.0.0.1 is listed
    assert sorted(_Handler.requests) == ["/article", "/thin"]  # the refused URL never was
