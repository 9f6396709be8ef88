"""Regenerate the screenshots of `docs/editor.md` from a real editor session: Neovim (Debian's `neovim`),
configured with the `lua` block of docs/editor.md, runs in a pseudo-terminal on a copy of
`examples/petstore/`; its screen is read by the terminal emulator `pyte` (the test extra), written as
HTML and photographed in Debian's headless Chromium (tests/e2e/browserkit.py), as
`docs/report_screenshots.py` does for the reports.

    python docs/editor_screenshots.py    # rewrites docs/images/editor-*.png

Three moments: the diagnostics of a misspelled operationId, the completion of a `$response.body#/`
pointer from the operation's response schema, and the hover of an output's expression with its value
from the last run (`arazzo run --report-json` against the example pet store, the report beside the
document). Every wait is for something on the screen, bounded (`WAIT`).
"""

from __future__ import annotations

import html
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout, whatever is installed

IMAGES = ROOT / "docs" / "images"
EXAMPLE = ROOT / "examples" / "petstore"
DOCUMENT = "petstore.arazzo.yaml"
COLUMNS, LINES = 128, 32
WAIT = 120.0  # seconds any screen may take to show on a busy machine
UI = """
vim.o.termguicolors = true
vim.cmd("syntax on")
vim.cmd("filetype indent off")
vim.cmd("colorscheme desert")
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.completeopt = "menuone,noinsert"
vim.o.shortmess = vim.o.shortmess .. "cI"
vim.o.swapfile = false
vim.o.laststatus = 2
vim.cmd("highlight Pmenu guibg=#3b4252 guifg=#e5e9f0")
vim.cmd("highlight PmenuSel guibg=#5e81ac guifg=#ffffff")
vim.cmd("highlight NormalFloat guibg=#2e3440 guifg=#e5e9f0")
vim.cmd("highlight FloatBorder guibg=#2e3440 guifg=#88c0d0")
vim.lsp.handlers["textDocument/hover"] = vim.lsp.with(vim.lsp.handlers.hover, { border = "rounded" })
vim.api.nvim_create_autocmd("FileType", {
  pattern = "yaml",
  callback = function(args) vim.bo[args.buf].omnifunc = "v:lua.vim.lsp.omnifunc" end,
})
"""
PALETTE = {  # pyte's names of the 16 ANSI colours (with termguicolors Neovim sends RGB)
    "black": "000000", "red": "cd3131", "green": "0dbc79", "brown": "e5e510", "blue": "2472c8",
    "magenta": "bc3fbc", "cyan": "11a8cd", "white": "e5e5e5", "brightblack": "666666",
    "brightred": "f14c4c", "brightgreen": "23d18b", "brightbrown": "f5f543", "brightblue": "3b8eea",
    "brightmagenta": "d670d6", "brightcyan": "29b8db", "brightwhite": "ffffff",
}  # fmt: skip
DEFAULT_FG, DEFAULT_BG = "ffffff", "333333"


def editor_config() -> str:
    """The `lua` block of docs/editor.md (its `arazzo` command this checkout's), then the look."""
    text = (ROOT / "docs" / "editor.md").read_text(encoding="utf-8")
    block = re.search(r"```lua\n(.*?)```", text, re.S).group(1)
    command = ", ".join(json.dumps(word) for word in (sys.executable, "-m", "arazzo_runner.cli", "lsp"))
    return block.replace('cmd = { "arazzo", "lsp" }', f"cmd = {{ {command} }}") + UI


class Terminal:
    """Neovim in a pseudo-terminal of COLUMNS x LINES, its output read into a `pyte` screen."""

    def __init__(self, folder: Path, *arguments: str) -> None:
        import fcntl
        import struct
        import termios

        import pyte

        self.screen = pyte.Screen(COLUMNS, LINES)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "HOME": str(folder),
            "XDG_CONFIG_HOME": str(folder / ".config"),
            "XDG_STATE_HOME": str(folder / ".state"),
            "XDG_DATA_HOME": str(folder / ".data"),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        nvim = shutil.which("nvim") or "nvim"
        self.process = subprocess.Popen(
            [nvim, "-n", "-i", "NONE", "-u", str(folder / "init.lua"), *arguments],
            stdin=slave, stdout=slave, stderr=slave, cwd=folder, env=env, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.master = master

    def pump(self, seconds: float) -> None:
        """Read what Neovim wrote for up to `seconds` (less once it is quiet)."""
        while True:
            ready, _, _ = select.select([self.master], [], [], seconds)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.stream.feed(data)
            seconds = 0.05

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait(self, found: str, *, every: str = "", what: str = "") -> None:
        """Pump until `found` is on the screen (typing `every` again each 3 s, when given)."""
        deadline = WAIT / 0.25
        tick = 0
        while found not in self.text():
            if every and tick % 12 == 0:
                self.type(every)
            self.pump(0.25)
            tick += 1
            if tick > deadline:
                raise SystemExit(f"{what or found!r} never showed; the screen:\n{self.text()}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def html(self, title: str) -> str:
        """The screen as a page of coloured cells, the cursor a block."""
        rows = []
        cursor = (self.screen.cursor.y, self.screen.cursor.x)
        for y in range(LINES):
            line = self.screen.buffer[y]
            spans = []
            for x in range(COLUMNS):
                char = line[x]
                fg, bg = _colour(char.fg, DEFAULT_FG), _colour(char.bg, DEFAULT_BG)
                if char.reverse != ((y, x) == cursor):
                    fg, bg = bg, fg
                style = f"color:#{fg};background:#{bg}" + (";font-weight:bold" if char.bold else "")
                style += ";font-style:italic" if char.italics else ""
                style += ";text-decoration:underline" if char.underscore else ""
                spans.append(f'<span style="{style}">{html.escape(char.data or " ")}</span>')
            rows.append("".join(spans))
        body = "\n".join(rows)
        return (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
            f"body{{margin:0;background:#{DEFAULT_BG}}}"
            "pre{margin:0;padding:8px;font:15px/19px 'DejaVu Sans Mono',monospace;display:inline-block}"
            "span{display:inline-block;height:19px;vertical-align:top}"
            f"</style></head><body data-ready='true'><pre>{body}</pre></body></html>"
        )

    def close(self) -> None:
        self.type("\x1b:qa!\r")
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def _colour(value: str, default: str) -> str:
    if value == "default":
        return default
    if re.fullmatch(r"[0-9a-fA-F]{6}", value):
        return value.lower()
    return PALETTE.get(value, default)


def prepare(folder: Path) -> Path:
    """A copy of the pet store example with `init.lua`; its document's first step's operationId
    misspelled (`getPets`) in `broken/`, as written in `ran/` (beside its last run's report)."""
    for name in ("broken", "ran"):
        (folder / name).mkdir(parents=True)
        for item in EXAMPLE.glob("petstore.*.yaml"):
            shutil.copy(item, folder / name / item.name)
        (folder / name / "init.lua").write_text(editor_config(), encoding="utf-8")
    broken = folder / "broken" / DOCUMENT
    text = broken.read_text(encoding="utf-8")
    broken.write_text(text.replace("operationId: getPet\n", "operationId: getPets\n", 1), encoding="utf-8")
    return folder


def run_example(folder: Path) -> None:
    """`arazzo run ... --report-json petstore.arazzo.report.json` against the example pet store."""
    sys.path.insert(0, str(ROOT / "examples"))
    from serve import make_server

    server = make_server("petstore")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        command = [sys.executable, "-m", "arazzo_runner.cli", "run", DOCUMENT, "-w", "pet_status"]
        command += ["--input", "petId=1", "--server", f"petstore=http://{host}:{port}"]
        command += ["--report-json", "petstore.arazzo.report.json", "--github", "off"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    if done.returncode != 0:
        raise SystemExit(f"arazzo run exited {done.returncode}:\n{done.stdout}\n{done.stderr}")


def sessions(folder: Path) -> dict[str, tuple[str, str]]:
    """The three moments: name -> (the screen's text, its HTML page)."""
    prepare(folder)
    run_example(folder / "ran")
    shots: dict[str, tuple[str, str]] = {}
    term = Terminal(folder / "broken", "+27", DOCUMENT)
    try:
        term.wait("was not found in source", what="the diagnostic")
        term.type(":call cursor(27, 22)\r:normal! zz\r:echo\r")
        term.wait("27,22", what="the cursor on the diagnostic")
        shots["diagnostics"] = (term.text(), term.html("diagnostics"))
    finally:
        term.close()
    term = Terminal(folder / "ran", "+35", DOCUMENT)
    try:
        term.wait(DOCUMENT)
        term.type(":call cursor(35, 30)\r:normal! zz\r")
        term.wait("last run", every=":lua vim.lsp.buf.hover()\r", what="the hover's last run")
        shots["hover"] = (term.text(), term.html("hover"))
        term.type("\x1b:call cursor(37, 1)\r:normal! zz\ro\x15          colour: $response.body#/")
        term.type("\x18\x0f")  # Ctrl-X Ctrl-O: the omni completion, from the server
        term.wait("Property", what="the completion menu")
        shots["completion"] = (term.text(), term.html("completion"))
    finally:
        term.close()
    return shots


def photograph(shots: dict[str, tuple[str, str]], folder: Path, images: Path) -> list[Path]:
    from tests.e2e.browserkit import Browser

    made = []
    browser = Browser()
    try:
        for name, (_text, page) in shots.items():
            path = folder / f"editor-{name}.html"
            path.write_text(page, encoding="utf-8")
            browser.driver.set_window_size(1600, 1000)  # room for the whole screen, photographed alone
            browser.open(path)
            made.append(images / f"editor-{name}.png")
            browser.find("pre").screenshot(str(made[-1]))
    finally:
        browser.close()
    return made


if __name__ == "__main__":
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        written = photograph(sessions(Path(scratch)), Path(scratch), IMAGES)
    print("wrote", ", ".join(p.name for p in written))
