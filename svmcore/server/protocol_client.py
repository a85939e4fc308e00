"""A Streamlit client at the protocol level: one browser tab without the browser.

:class:`Session` speaks the app server's websocket protocol (``/_stcore/stream``) with Streamlit's
own protobuf classes, as the frontend does (its sources are the minified bundle in
``streamlit/static``; what is emulated here was read there):

* it asks for a script run with a ``rerun_script`` BackMsg (a ``ClientState``: the query string,
  the page's script hash once the server named it — ``navigation`` — else the page name from the
  path, the widget states, the hashes of the cached messages, the browser context);
* it receives ForwardMsgs: ``new_session`` (a script run starts), ``navigation`` (the pages the
  sidebar lists, and which of them is shown), ``page_config_changed`` (the tab's title),
  ``page_info_changed`` (the script wrote the query string: later reruns send the new one),
  ``delta`` (an element or block at ``metadata.delta_path``), ``script_finished``,
  ``auto_rerun`` / ``stop_auto_rerun``; ``ref_hash`` messages are resolved from its message cache
  (large elements are cached by hash and the server sends a reference when the client says it has
  one, exactly as the frontend's ForwardMsgCache: aged by finished runs, dropped after
  ``max_cached_message_age``);
* a button press is a rerun with that widget's ``trigger_value`` (widget ids end with the user
  key: ``$$ID-<hash>-<key>``); a value widget set by the user (a slider, an expander opened) is
  a rerun with its new value, and that value is sent again with every later rerun, as the
  frontend's widget-state manager does (widgets never touched keep the server's value);
* a download button's file is at the address its element names (``url``, served by the app's
  media endpoint), as a click on it fetches it;
* a file uploader's file: a ``file_urls_request`` BackMsg (the file's name, the session's id)
  answered by ``file_urls_response`` (a file id and an upload address), an HTTP PUT of the file
  as ``multipart/form-data`` to that address with the XSRF cookie's token in ``X-Xsrftoken``
  (the double-submit pattern: the page's GET set the cookie), then a rerun with the uploader's
  ``file_uploader_state_value`` naming the file;
* a fragment with ``run_every`` makes the server send ``auto_rerun(interval, fragment_id)``; the
  frontend then sends a fragment rerun (``fragment_id``, ``is_auto_rerun``) every ``interval``
  seconds with ``setInterval`` — whether or not the previous one finished — until a full run
  starts (a ``new_session`` without fragment ids clears every timer) or ``stop_auto_rerun``
  names the fragment. A server that pushes fragment frames by itself needs no timer: its deltas
  are counted the same way.

What is recorded, with ``time.monotonic()`` stamps: every message's size, the frames (a delta
that replaces the element whose user key is ``field_key``), the keyframes each frame carries (a
canvas view's data ``{"frame": "<json>"}`` holds either one exact frame or a batch
``{"keys": [...], "dt", "snap"}`` that the browser plays back: a batch counts ``len(keys)``,
anything else one), the start of every script run and whether it was a fragment's, the values of
the metric tiles (by label) and when the watched tile changed, exceptions and error alerts shown
in the page.

The module imports only ``streamlit.proto`` (the protocol's message classes) and ``websockets``.
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FIELD_KEY = "pg_field"          # the Playground's decision-field chart
TILE = "iteration t"            # the Playground's iteration tile
ERROR_ALERT = 1                 # Alert.Format.ERROR


def user_key(element_id: str) -> str | None:
    """The user key inside a Streamlit element id ``$$ID-<hash>-<key>`` (None without one)."""
    if not element_id.startswith("$$ID-"):
        return None
    parts = element_id.split("-", 2)
    if len(parts) < 3 or parts[2] == "None":
        return None
    return parts[2]


def frame_keys(data_json: str) -> list:
    """The ``t`` of each keyframe in a canvas view's data (``{"frame": "<json>"}``): one entry
    for a single frame, one per entry of a batch's ``keys``; [] for data that is not a frame
    (None for a keyframe without ``t``)."""
    try:
        frame = json.loads(json.loads(data_json)["frame"])
    except (ValueError, TypeError, KeyError):
        return []
    if not isinstance(frame, dict):
        return []
    keys = frame.get("keys")
    if isinstance(keys, list):
        return [k.get("t") if isinstance(k, dict) else None for k in keys]
    return [frame.get("t")]


@dataclass
class _Cached:
    msg: ForwardMsg
    run: int                    # the script-run count when last used
    fragment_id: str


@dataclass
class Session:
    """One app session over a websocket. ``url`` is the app's address (``http://host:port``,
    optionally with a path prefix); ``query`` the query string (without ``?``); ``page`` the
    page's path (``""`` for the main page, ``"race"``). ``cookies`` are sent with the websocket
    handshake (a load balancer's affinity cookie)."""

    url: str
    query: str = ""
    page: str = ""
    field_key: str = FIELD_KEY
    tile: str = TILE
    name: str = ""
    cookies: dict = field(default_factory=dict)

    # --- what the session saw (times from time.monotonic()) ---
    t_open: float | None = None
    n_messages: int = 0
    bytes_in: int = 0
    messages: list = field(default_factory=list)       # (t, bytes) of every message
    frames: list = field(default_factory=list)         # (t, bytes) of every field delta
    keyframes: list = field(default_factory=list)      # (t, keyframes) of every field delta
    key_ts: list = field(default_factory=list)         # the "t" of every keyframe, in order
    run_starts: list = field(default_factory=list)     # (t, fragment run?) of every script run
    tile_values: dict = field(default_factory=dict)    # label -> body of every metric seen
    tile_changes: list = field(default_factory=list)   # (t, body) when the watched tile changed
    errors: list = field(default_factory=list)         # exception / error texts in the page
    widgets: dict = field(default_factory=dict)        # user key -> (id, disabled)
    app_pages: list = field(default_factory=list)      # the sidebar's (title, url path), last sent
    page_path: str = ""                                # the url path of the page shown
    title: str = ""                                    # the tab's title (page config)
    downloads: dict = field(default_factory=dict)      # download button's user key -> url
    widget_fragments: dict = field(default_factory=dict)  # user key -> fragment id ("" outside)
    texts: dict = field(default_factory=dict)          # delta path -> markdown body, this page's
    runs_started: int = 0
    runs_finished: int = 0
    fragment_runs: int = 0
    auto_rerun_requests: int = 0
    handshake_headers: dict = field(default_factory=dict)
    alerts: list = field(default_factory=list)         # (format, body) of every alert shown
    replicas: list = field(default_factory=list)       # a load balancer's replica, per request
    closed_reason: str | None = None

    def __post_init__(self):
        self.page_hash = ""
        self.session_id = ""
        self.running = False
        self.max_cache_age = 2
        self._cache: dict[str, _Cached] = {}
        self._run_count = 0
        self._run_fragments: list[str] = []
        self._announced: set[str] = set()
        self._announced_finishes = 0
        self._timers: dict[str, tuple[float, asyncio.Task]] = {}
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._changed: asyncio.Event | None = None
        self._field_path: tuple | None = None     # where the field chart was last drawn
        self._values: dict[str, WidgetState] = {}  # the values this user set, by user key
        self._file_urls: dict = {}                 # request id -> FileURLsResponse

    # ------------------------------------------------------------------ parsing (no I/O)

    def handle(self, data: bytes, now: float | None = None) -> ForwardMsg:
        """Take one ForwardMsg as it came over the wire; returns it (a reference resolved)."""
        now = time.monotonic() if now is None else now
        self.n_messages += 1
        self.bytes_in += len(data)
        self.messages.append((now, len(data)))
        msg = ForwardMsg()
        msg.ParseFromString(data)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            hit = self._cache.get(msg.ref_hash)
            if hit is None:
                self.errors.append(f"cache miss for a referenced message {msg.ref_hash}")
                return msg
            hit.run = self._run_count
            resolved = ForwardMsg()
            resolved.CopyFrom(hit.msg)
            resolved.metadata.CopyFrom(msg.metadata)
            msg = resolved
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash and msg.hash not in self._cache:
            self._cache[msg.hash] = _Cached(msg, self._run_count,
                                            msg.delta.fragment_id if kind == "delta" else "")
        if kind == "delta":
            self._delta(msg, len(data), now)
        elif kind == "new_session":
            self._new_session(msg, now)
        elif kind == "navigation":
            nav = msg.navigation
            self.page_hash = nav.page_script_hash
            self.app_pages = [(p.page_name, p.url_pathname) for p in nav.app_pages]
            self.page_path = next((p.url_pathname for p in nav.app_pages
                                   if p.page_script_hash == nav.page_script_hash), "")
        elif kind == "page_config_changed":
            if msg.page_config_changed.title:
                self.title = msg.page_config_changed.title
        elif kind == "page_not_found":
            self.errors.append(f"page not found: {msg.page_not_found.page_name!r}")
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "script_finished":
            self._script_finished(msg)
        elif kind == "auto_rerun":
            self._start_timer(msg.auto_rerun.fragment_id, float(msg.auto_rerun.interval))
        elif kind == "file_urls_response":
            self._file_urls[msg.file_urls_response.response_id] = msg.file_urls_response
        elif kind == "stop_auto_rerun":
            for fid in msg.stop_auto_rerun.fragment_ids:
                self._stop_timer(fid)
        if self._changed is not None:
            self._changed.set()
        return msg

    def _new_session(self, msg: ForwardMsg, now: float | None = None) -> None:
        ns = msg.new_session
        if ns.HasField("initialize") and ns.initialize.session_id:
            self.session_id = ns.initialize.session_id
        if ns.HasField("config") and ns.config.max_cached_message_age:
            self.max_cache_age = int(ns.config.max_cached_message_age)
        self._run_fragments = list(msg.metadata.run.fragment_ids)
        self.runs_started += 1
        self.run_starts.append((time.monotonic() if now is None else now,
                                bool(self._run_fragments)))
        self.running = True
        if self._run_fragments:
            self.fragment_runs += 1
        else:                              # a full run: the frontend clears every timer
            for fid in list(self._timers):
                self._stop_timer(fid)
            self.texts.clear()             # (every element of the page is sent again)
            if not self.page_hash:
                self.page_hash = ns.page_script_hash

    def _script_finished(self, msg: ForwardMsg) -> None:
        self.runs_finished += 1
        self.running = False
        if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            return
        self._run_count += 1               # the frontend's incrementRunCount
        frags = self._run_fragments
        self._announced_finishes += 1
        keep = self._announced if self._announced_finishes <= 2 else set()
        for h, c in list(self._cache.items()):
            if frags and (not c.fragment_id or c.fragment_id not in frags):
                continue
            if h in keep:
                continue
            if self._run_count - c.run > self.max_cache_age:
                del self._cache[h]

    def _delta(self, msg: ForwardMsg, nbytes: int, now: float) -> None:
        """A frame is a delta whose element or block carries the field's key, or any element
        that replaces it at its place (an element without an id, e.g. an image)."""
        delta = msg.delta
        kind = delta.WhichOneof("type")
        path = tuple(msg.metadata.delta_path)
        key = None
        data_json = ""                        # a canvas view's data
        if kind == "new_element":
            el = delta.new_element
            etype = el.WhichOneof("type")
            sub = getattr(el, etype) if etype else None
            eid = getattr(sub, "id", "") if sub is not None else ""
            key = user_key(eid) if isinstance(eid, str) else None
            if key is not None:
                self.widgets[key] = (eid, bool(getattr(sub, "disabled", False)))
                self.widget_fragments[key] = delta.fragment_id
            if etype == "bidi_component":
                data_json = sub.mixed.json if sub.WhichOneof("data") == "mixed" else sub.json
            if etype == "download_button" and key is not None:
                self.downloads[key] = sub.url
            if etype == "metric":
                label, body = sub.label, sub.body
                if label == self.tile and self.tile_values.get(label) != body:
                    self.tile_changes.append((now, body))
                self.tile_values[label] = body
            elif etype == "markdown":
                self.texts[path] = sub.body
            elif etype == "exception":
                self.errors.append(f"{sub.type}: {sub.message}")
            elif etype == "alert":
                self.alerts.append((sub.format, sub.body))
                if sub.format == ERROR_ALERT:
                    self.errors.append(sub.body)
        elif kind == "add_block":
            block = delta.add_block
            key = user_key(block.id) if block.HasField("id") else None
            if key is not None:               # a block that is a widget: an expander with a key
                self.widgets[key] = (block.id, False)
                self.widget_fragments[key] = delta.fragment_id
        else:
            return
        if key == self.field_key:
            self._field_path = path
        elif not (key is None and path and path == self._field_path):
            return
        self.frames.append((now, nbytes))
        ts = frame_keys(data_json)
        self.keyframes.append((now, len(ts) if ts else 1))
        self.key_ts.extend(t for t in ts if t is not None)

    # ------------------------------------------------------------------ what to send

    def rerun_msg(self, widgets=(), fragment_id: str = "", auto: bool = False) -> BackMsg:
        """The ``rerun_script`` BackMsg the frontend would send now."""
        back = BackMsg()
        cs = back.rerun_script
        cs.query_string = self.query
        if self.page_hash:
            cs.page_script_hash = self.page_hash
        else:
            cs.page_name = self.page
        if fragment_id:
            cs.fragment_id = fragment_id
        cs.is_auto_rerun = auto
        given = {w.id for w in widgets}
        cs.widget_states.widgets.extend(widgets)
        cs.widget_states.widgets.extend(w for w in self._values.values() if w.id not in given)
        cs.cached_message_hashes.extend(self._cache)
        # the server may refer to any of these in the run this request starts: keep them until
        # that run has finished, even if a run in progress now ends and ages them out
        self._announced = set(self._cache)
        self._announced_finishes = 0
        ctx = cs.context_info
        ctx.timezone = "UTC"
        ctx.timezone_offset = 0
        ctx.locale = "en-US"
        ctx.url = self.page_url
        ctx.is_embedded = False
        ctx.color_scheme = "light"
        return back

    @property
    def page_url(self) -> str:
        base = self.url.rstrip("/") + "/" + self.page
        return base + ("?" + self.query if self.query else "")

    def trigger(self, key: str) -> WidgetState:
        """The widget state of a press of the button with user key ``key``."""
        if key not in self.widgets:
            raise KeyError(f"no widget with key {key!r} in this session's page")
        return WidgetState(id=self.widgets[key][0], trigger_value=True)

    def value_state(self, key: str, **value) -> WidgetState:
        """The widget state of ``key`` set to ``value`` (one field of WidgetState, e.g.
        ``string_array_value={"data": ["×4"]}`` for a select slider,
        ``bool_value=True`` for an expander), remembered for every later rerun."""
        if key not in self.widgets:
            raise KeyError(f"no widget with key {key!r} in this session's page")
        state = WidgetState(id=self.widgets[key][0], **value)
        self._values[key] = state
        return state

    def enabled(self, key: str) -> bool:
        return key in self.widgets and not self.widgets[key][1]

    # ------------------------------------------------------------------ I/O

    async def open(self, timeout: float = 60.0) -> None:
        """Connect and ask for the first script run (as a browser opening the link)."""
        from websockets.asyncio.client import connect

        self._changed = asyncio.Event()
        self.t_open = time.monotonic()
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = parts.path.rstrip("/")
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self._ws = await connect(f"{scheme}://{parts.netloc}{path}/_stcore/stream",
                                 subprotocols=["streamlit"], max_size=None,
                                 additional_headers=headers or None, open_timeout=timeout,
                                 ping_interval=None, compression="deflate")
        self.handshake_headers = {k.lower(): v for k, v in self._ws.response.headers.items()}
        self._reader = asyncio.create_task(self._read())
        await self.send(self.rerun_msg())

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed
        try:
            async for data in self._ws:
                if isinstance(data, bytes):
                    self.handle(data)
        except ConnectionClosed as exc:
            self.closed_reason = f"closed: {exc}"
        except Exception as exc:  # noqa: BLE001 - recorded, the benchmark reports it
            self.closed_reason = f"{type(exc).__name__}: {exc}"
        finally:
            for fid in list(self._timers):
                self._stop_timer(fid)
            if self._changed is not None:
                self._changed.set()

    async def send(self, back: BackMsg) -> None:
        await self._ws.send(back.SerializeToString())

    async def rerun(self, widgets=(), fragment_id: str = "", auto: bool = False) -> None:
        await self.send(self.rerun_msg(widgets, fragment_id, auto))

    async def press(self, key: str) -> float:
        """Press the button ``key``; returns the time of the press. A button inside a fragment
        asks for a run of that fragment, as the frontend does (``fragment_id``)."""
        t = time.monotonic()
        await self.rerun([self.trigger(key)], fragment_id=self.widget_fragments.get(key, ""))
        return t

    async def change(self, key: str, **value) -> float:
        """Set the value widget ``key`` (see :meth:`value_state`) as a user would: a rerun of
        its fragment, or of the page; returns the time of the change."""
        t = time.monotonic()
        await self.rerun([self.value_state(key, **value)],
                         fragment_id=self.widget_fragments.get(key, ""))
        return t

    def download_url(self, key: str) -> str:
        """The address of the file of the download button ``key`` (the app's path prefix kept)."""
        if key not in self.downloads:
            raise KeyError(f"no download button with key {key!r} in this session's page")
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}{self.downloads[key]}"

    async def download(self, key: str, timeout: float = 60.0) -> bytes:
        """The file of the download button ``key`` as a click fetches it."""
        import urllib.request

        url = self.download_url(key)

        def get() -> bytes:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return r.read()
        return await asyncio.to_thread(get)

    async def upload(self, key: str, name: str, data: bytes, timeout: float = 120.0) -> float:
        """Choose the file ``name`` with contents ``data`` in the file uploader ``key``, as the
        frontend does (see the module docstring); returns the time the rerun was asked for.
        Raises on a refused upload (the HTTP error names the status)."""
        import urllib.request
        import uuid

        from streamlit.proto.Common_pb2 import FileUploaderState, UploadedFileInfo

        if key not in self.widgets:
            raise KeyError(f"no widget with key {key!r} in this session's page")
        request_id = uuid.uuid4().hex
        back = BackMsg()
        back.file_urls_request.request_id = request_id
        back.file_urls_request.file_names.append(name)
        back.file_urls_request.session_id = self.session_id
        await self.send(back)
        if not await self.wait(lambda: request_id in self._file_urls, timeout):
            raise TimeoutError(f"no upload address for {name!r}")
        resp = self._file_urls.pop(request_id)
        if resp.error_msg:
            raise RuntimeError(resp.error_msg)
        urls = resp.file_urls[0]
        parts = urlsplit(self.url)
        target = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}{urls.upload_url}"
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        if "_streamlit_xsrf" not in self.cookies:      # the health check sets it, as the page's
            await asyncio.to_thread(self._xsrf_cookie, timeout)
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if "_streamlit_xsrf" in self.cookies:
            headers["X-Xsrftoken"] = self.cookies["_streamlit_xsrf"]

        def put() -> None:
            req = urllib.request.Request(target, data=body, method="PUT", headers=headers)
            with urllib.request.urlopen(req, timeout=timeout) as r:
                r.read()
        await asyncio.to_thread(put)
        info = UploadedFileInfo(file_id=urls.file_id, name=name, size=len(data))
        info.file_urls.CopyFrom(urls)
        return await self.change(key, file_uploader_state_value=FileUploaderState(
            uploaded_file_info=[info]))

    def _xsrf_cookie(self, timeout: float) -> None:
        """The XSRF cookie the server sets on its health check (the frontend's first request),
        kept with this session's cookies."""
        import urllib.request

        parts = urlsplit(self.url)
        req = urllib.request.Request(f"{parts.scheme}://{parts.netloc}"
                                     f"{parts.path.rstrip('/')}/_stcore/health")
        if self.cookies:
            req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        with urllib.request.urlopen(req, timeout=timeout) as r:
            for value in r.headers.get_all("Set-Cookie") or []:
                k, _, v = value.split(";", 1)[0].partition("=")
                self.cookies[k.strip()] = v.strip()

    async def wait(self, predicate, timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked after every message); False on timeout or
        when the connection is closed."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.closed_reason is not None or self._changed is None:
                return predicate()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                return predicate()
        return True

    async def idle(self, timeout: float) -> bool:
        """Wait until no script run is in progress."""
        return await self.wait(lambda: not self.running and self.runs_finished > 0, timeout)

    async def close(self) -> None:
        for fid in list(self._timers):
            self._stop_timer(fid)
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5.0)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._reader.cancel()

    # ------------------------------------------------------------------ the frontend's timer

    def _start_timer(self, fragment_id: str, interval: float) -> None:
        if not fragment_id:
            return
        old = self._timers.get(fragment_id)
        if old is not None and old[0] == interval:
            return
        self._stop_timer(fragment_id)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:                       # parsing without a loop (unit tests)
            self._timers[fragment_id] = (interval, None)
            return
        self._timers[fragment_id] = (interval, loop.create_task(self._tick(fragment_id,
                                                                            interval)))

    def _stop_timer(self, fragment_id: str) -> None:
        entry = self._timers.pop(fragment_id, None)
        if entry is not None and entry[1] is not None:
            entry[1].cancel()

    @property
    def timers(self) -> dict[str, float]:
        """The auto-rerun timers running now: fragment id -> interval (s)."""
        return {fid: iv for fid, (iv, _) in self._timers.items()}

    async def _tick(self, fragment_id: str, interval: float) -> None:
        while True:                                # setInterval: every interval, no catching up
            await asyncio.sleep(interval)
            self.auto_rerun_requests += 1
            try:
                await self.rerun(fragment_id=fragment_id, auto=True)
            except Exception:  # noqa: BLE001 - the connection is gone; the reader records why
                return


async def warm(url: str, query: str = "", timeout: float = 300.0) -> tuple[float, str]:
    """Open the page once and wait for its first frame (the server's first visitor compiles or
    loads the solvers); returns the seconds it took and the link's query string as the page
    wrote it (the full configuration of the page's default when ``query`` is empty)."""
    s = Session(url, query=query, name="warm-up")
    await s.open(timeout)
    ok = await s.wait(lambda: bool(s.frames) or bool(s.errors), timeout)
    await s.close()
    if not ok or s.errors:
        raise RuntimeError(f"warming {url} failed: {s.errors or s.closed_reason or 'timeout'}")
    return s.frames[0][0] - s.t_open, s.query


def warm_up(url: str, query: str = "", timeout: float = 300.0) -> tuple[float, str]:
    """:func:`warm` outside an event loop."""
    return asyncio.run(warm(url, query, timeout))
