"""`ampcheck server`: the linter as a language server (LSP over stdio, on pygls).

Layers, each importing only those below it: `session` (what the server knows between
requests: open buffers, settings, project models; no LSP) -> `convert` (findings as LSP
diagnostics and edits) -> `actions`, `hover` -> `app` (the pygls server and its handlers).
Only `app` imports pygls; the rest needs lsprotocol's types at most.
"""
