"""Uploads under load (svmcore.bench.app.uploads): the files it sends and the protocol client's part
of an upload, without a server. The benchmark's run itself measures speed and memory, so it is
not in the suite; the files' outcomes in the app are tests/app's."""
from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from svmcore.bench.app import uploads
from svmcore.server.protocol_client import Session

COVTYPE = b"".join(f"{1 + k % 2} 1:{k} 3:0.5 7:0.25\n".encode() for k in range(20000))


def test_malformed_files_are_what_they_say():
    names = {}
    for k, kind in enumerate(uploads.BAD_KINDS):
        name, data = uploads.bad_file(kind, k, COVTYPE)
        names[kind] = name
        if kind == "binary":
            assert b"\0" in data
        elif kind == "truncated":
            assert data.endswith(b":") and not data.endswith(b"\n")
        elif kind == "million_columns":
            assert data.split(b"\n")[0].count(b",") == 10**6
            assert len(data) < 10 * 2**20                  # under the upload limit
        else:
            first = data.split(b"\n")[0].split(b" ")
            assert b":" in first[0] and b":" not in first[-1]
    assert len(set(names.values())) == len(uploads.BAD_KINDS)
    name, data = uploads.good_csv(0, rows=10)
    assert name.endswith(".csv") and data.count(b"\n") == 11


def test_upload_addresses_and_alerts_are_kept():
    s = Session("http://127.0.0.1:1")
    m = ForwardMsg()
    m.file_urls_response.response_id = "req1"
    f = m.file_urls_response.file_urls.add()
    f.file_id, f.upload_url = "fid", "/_stcore/upload_file/sid/fid"
    s.handle(m.SerializeToString())
    assert s._file_urls["req1"].file_urls[0].upload_url.endswith("/fid")
    a = ForwardMsg()
    a.delta.new_element.alert.body = "x.csv: not a text file"
    a.delta.new_element.alert.format = 1
    s.handle(a.SerializeToString())
    assert s.alerts == [(1, "x.csv: not a text file")] and s.errors == ["x.csv: not a text file"]
