"""Take-away replays: a link played headless through the engine into the live view's real
keyframes (:mod:`.record`), written as one self-contained HTML replay, a GIF or an MP4
(:mod:`.files`, the ``svmcore export`` command). It composes runs, the server's pacing and viz,
and nothing below it imports it."""
