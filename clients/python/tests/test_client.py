"""The client over a real local socket (http.server): paged lists followed by their Link
headers, and the API's JSON errors raised as LedgerdError. The Node suite runs it against a
real ledgerd node too (test/unit/client/pythonClient.test.ts)."""

import json
import threading
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List

from ledgerd_client import LedgerdClient, LedgerdError, next_page_of

ITEMS = [{"transaction_id": "%064x" % i, "output_index": 0} for i in range(7)]


class PagedNode(BaseHTTPRequestHandler):
    """Serves ITEMS `limit` at a time; the cursor is the index of the next item."""

    asked: List[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        PagedNode.asked.append(self.path)
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path != "/api/v1/outputs":
            return self._send(404, {"message": "Not found", "status": 404}, None)
        limit, start = int(query["limit"]), int(query.get("cursor", "0"))
        end = min(start + limit, len(ITEMS))
        link = (
            None
            if end == len(ITEMS)
            else '</api/v1/outputs?public_key=k&limit=%d&cursor=%d>; rel="next"' % (limit, end)
        )
        self._send(200, ITEMS[start:end], link)

    def _send(self, status: int, document: object, link: object) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        if link is not None:
            self.send_header("link", str(link))
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), PagedNode)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.client = LedgerdClient("http://127.0.0.1:%d/" % self.server.server_address[1])
        PagedNode.asked = []

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def test_walks_every_page_by_its_link(self) -> None:
        self.assertEqual(list(self.client.outputs("k", page_size=3)), ITEMS)
        self.assertEqual(len(PagedNode.asked), 3)
        self.assertTrue(all("cursor=" in path for path in PagedNode.asked[1:]))

    def test_an_error_answer_is_a_ledgerd_error(self) -> None:
        with self.assertRaises(LedgerdError) as raised:
            self.client.get_proof("ab")
        self.assertEqual((raised.exception.status, str(raised.exception)), (404, "Not found"))

    def test_next_page_of(self) -> None:
        self.assertEqual(next_page_of('</a?cursor=x>; rel="next"'), "/a?cursor=x")
        self.assertEqual(next_page_of("</a>; rel=next"), "/a")
        self.assertIsNone(next_page_of('</a>; rel="prev"'))
        self.assertIsNone(next_page_of(None))


if __name__ == "__main__":
    unittest.main()
