"""A local HTTP server replaying real EDGAR responses (laid out by URL path; both SEC hosts map to the same root),
with faults that tests switch on per path. The responses are tests/edgar/, cut from the recording in
../shared/corpus/edgar by scripts/make_edgar_fixture.py, so the tests run from a fresh clone."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.conftest import ROOT

RECORDED = ROOT / "tests" / "edgar"
NOT_FOUND = RECORDED / "_errors" / "data.sec.gov" / "submissions" / "CIK-000000001.json.404.xml"


@dataclass
class Faults:
    """Per-path answers given before the real file: e.g. {path: [(429, {"Retry-After": "1"})]}."""

    before: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)
    bodies: dict[str, bytes] = field(default_factory=dict)  # answers that replace the recorded file of a path
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, User-Agent)


def _handler(faults: Faults) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            faults.requests.append((path, self.headers.get("User-Agent", "")))
            queued = faults.before.get(path)
            if queued:
                status, headers = queued.pop(0)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            file = (RECORDED / path.lstrip("/")).resolve()
            if path in faults.bodies:
                body = faults.bodies[path]
                self.send_response(200)
            elif RECORDED.resolve() not in file.parents or not file.is_file():
                body = NOT_FOUND.read_bytes()
                self.send_response(404)
                self.send_header("Content-Type", "application/xml")
            else:
                body = file.read_bytes()
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

    return Handler


@contextmanager
def edgar_server(faults: Faults) -> Iterator[str]:
    """Serve on a free loopback port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(faults))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
