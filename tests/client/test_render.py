"""--format svg|png renders the retainer graph with Graphviz dot (skipped,
exit 77, when dot is not installed; exit 11 without dot is in test_exit_codes)."""
import shutil

from client_helper import *


def test():
    if not shutil.which("dot"):
        print("skipped: Graphviz dot is not installed")
        sys.exit(77)
    svg = os.path.join(TMP, "root.svg")
    r = expect(["root", H2] + LEAKED[:3] + ["--format", "svg", "-o", svg], OK, "root --format svg -o")
    text = open(svg).read()
    check(text.startswith("<?xml") or text.startswith("<svg"), "an SVG file: %r" % text[:80])
    check(ARRAY in text and "Nearest common retainer: " + ARRAY in r.stdout, "the SVG shows the retainer", r)
    r = expect(["root", H2] + LEAKED[:3] + ["--format", "svg"], OK, "root --format svg to stdout")
    check(r.stdout.startswith("<?xml") or r.stdout.startswith("<svg"), "SVG on stdout", r)
    png = os.path.join(TMP, "root.png")
    expect(["root", H2, LEAKED[0], "--format", "png", "-o", png], OK, "root --format png")
    check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "a PNG file")
    expect(["stop"], OK, "stop")


main(test)
