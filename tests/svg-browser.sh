#!/bin/sh
# tests/svg-browser.sh: the --svg document's script, run by a real browser
# (headless Chromium): click to zoom, the ancestors kept and the rest
# hidden, Ctrl-F search with its Matched %, Escape, Reset Zoom, a bad regex,
# case rules, the details line on hover, an icicle (--inverted), a --diff
# document and hostile names. A page holds each document in a frame and
# drives it with DOM events (window.prompt answered by the page); Chromium
# prints the page with what it found (--dump-dom). Every expected value is
# worked out by hand from the small profiles below. SKIP without Chromium.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/lib.sh"

"$TFLAME" --list-options 2>/dev/null | grep -q "^svg	" || skip_all "this tflame has no --svg option"
browser=''
for b in chromium chromium-browser google-chrome chrome-headless-shell; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
[ -n "$browser" ] || skip_all "no Chromium to run the SVG's script (Debian: chromium)"
D=$T_TMP

# Profiles worked by hand. p: all 10 = a 9 (b 5 (c 2, d 3), e 4), f 1.
printf 'a;b;c 2\na;b;d 3\na;e 4\nf 1\n' > "$D/p.folded"
# before 10 (a;b 5, a;c 5), after 20 (a;b 8, a;c 2, x 10)
printf 'a;b 5\na;c 5\n' > "$D/before.folded"
printf 'a;b 8\na;c 2\nx 10\n' > "$D/after.folded"
# 7 samples under main: names a script, CDATA or markup would trip on; the
# last is "  spaced " (the count follows the last blank, as flamegraph.pl)
printf 'main;</script> 2\nmain;]]> 1\nmain;a&b"<x> 3\nmain;  spaced  1\n' > "$D/h.folded"

"$TFLAME" --svg "$D/p.folded" > "$D/p.svg" &&
	"$TFLAME" --svg --inverted "$D/p.folded" > "$D/i.svg" &&
	"$TFLAME" --svg --diff "$D/before.folded" "$D/after.folded" > "$D/d.svg" &&
	"$TFLAME" --svg "$D/h.folded" > "$D/h.svg" || { echo "Bail out! tflame --svg failed"; exit 1; }

# The page: each step appends a line "LABEL VALUE" to #out.
cat > "$D/t.html" <<'X'
<!DOCTYPE html>
<html><body><pre id="out"></pre>
<iframe id="p" src="p.svg" width="1300" height="200"></iframe>
<iframe id="i" src="i.svg" width="1300" height="200"></iframe>
<iframe id="d" src="d.svg" width="1300" height="200"></iframe>
<iframe id="h" src="h.svg" width="1300" height="200"></iframe>
<script>
"use strict";
function out(s) { document.getElementById("out").textContent += s + "\n"; }
function doc(id) {
  var w = document.getElementById(id).contentWindow, d = w.document;
  var gs = d.getElementById("frames").children;
  var o = { w: w, d: d, n: gs.length };
  o.g = function (name) {
    for (var k = 0; k < gs.length; k++)
      if (gs[k].firstElementChild.textContent.indexOf(name + " (") === 0) return gs[k];
    throw new Error("no frame " + name);
  };
  o.st = function (name) {
    var g = o.g(name), r = g.querySelector("rect");
    return name + " x=" + r.getAttribute("x") + " y=" + r.getAttribute("y") + " w=" +
      r.getAttribute("width") + " class=" + (g.getAttribute("class") || "");
  };
  o.click = function (name) {
    o.g(name).querySelector("rect").dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
  };
  o.key = function (key, ctrl) {
    w.dispatchEvent(new w.KeyboardEvent("keydown", { key: key, ctrlKey: !!ctrl, bubbles: true }));
  };
  o.search = function (re) { w.prompt = function () { return re; }; o.key("f", true); };
  o.matched = function () { return JSON.stringify(d.getElementById("matched").textContent); };
  return o;
}
function run(id, f) {
  try { f(doc(id)); } catch (e) { out(id + " ERROR " + e); }
}
window.addEventListener("load", function () {
  run("p", function (p) {
    out("p.frames " + p.n);
    p.click("b");
    ["all", "a", "b", "c", "d", "e", "f"].forEach(function (n) { out("p.zoom-b " + p.st(n)); });
    p.search("c");
    out("p.zoom-b.search-c " + p.matched() + " " + p.st("c"));
    p.key("Escape");
    out("p.esc1 " + p.matched() + " " + p.st("c"));
    p.key("Escape");
    out("p.esc2 " + p.st("b") + " / " + p.st("e"));
    p.search("[bcd]");
    out("p.search-bcd " + p.matched());
    p.click("a");
    out("p.search-bcd.zoom-a " + p.matched());
    p.d.getElementById("reset").dispatchEvent(new p.w.MouseEvent("click", { bubbles: true }));
    out("p.reset " + p.st("a") + " " + p.matched());
    p.search("(");
    out("p.bad " + (p.d.getElementById("matched").textContent.indexOf("Bad regex: ") === 0));
    p.search("A");
    out("p.upper-A " + p.matched());
    p.search("a");
    out("p.lower-a " + p.matched());
    p.search("");
    out("p.empty " + p.matched() + " " + p.st("all"));
    p.g("d").querySelector("rect").dispatchEvent(new p.w.MouseEvent("mouseover", { bubbles: true }));
    out("p.hover-d " + JSON.stringify(p.d.getElementById("details").textContent));
  });
  run("i", function (p) {
    out("i.before " + p.st("all") + " / " + p.st("c"));
    p.click("b");
    ["all", "b", "c", "d", "e"].forEach(function (n) { out("i.zoom-b " + p.st(n)); });
  });
  run("d", function (p) {
    p.search("b");
    out("d.search-b " + p.matched());
    p.click("a");
    out("d.search-b.zoom-a " + p.matched());
  });
  run("h", function (p) {
    out("h.frames " + p.n);
    p.search("script");
    out("h.script " + p.matched());
    p.search("]]>");
    out("h.cdata " + p.matched());
    p.search("^a&b\"<x>$");
    out("h.markup " + p.matched());
    p.search("^  spaced $");
    out("h.spaces " + p.matched());
  });
  out("done");
});
</script></body></html>
X

# Chromium prints the page once its load event has run (the frames load
# first). --allow-file-access-from-files: the page reads its frames'
# documents (file: URLs are each an origin of their own otherwise).
timeout -k 5 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$D/profile" --allow-file-access-from-files --virtual-time-budget=10000 \
	--dump-dom "file://$D/t.html" > "$D/dom" 2> "$D/browser.err"
rc=$?
sed -n '/<pre id="out">/,/<\/pre>/p' "$D/dom" | sed 's/^.*<pre id="out">//; s/<\/pre>.*$//' |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' > "$D/got"
if ! grep -qx done "$D/got"; then
	fail "the browser ran the page to its end (exit $rc)" "$(head -c 1500 "$D/got")" "$(tail -5 "$D/browser.err")"
	done_testing
	exit
fi
pass "the browser ran the page to its end"

# want LABEL VALUE: the line of the page that starts with LABEL is VALUE.
want() {
	got=$(grep -F -- "$1 " "$D/got" | head -n 1)
	got=${got#"$1 "}
	if [ "$got" = "$2" ]; then pass "$1: $2"
	else fail "$1" "want: $2" "got:  $got"; fi
}

# Zoom on b (width 590 of GW 1180): b fills GW, c (2 of 5) and d (3 of 5)
# are 472 and 708 wide, d at 10 + 472; its ancestors a and all span GW
# (class a), e and f are hidden (class h, left as they were).
want p.frames 7
grep -F 'p.zoom-b ' "$D/got" | sed 's/^p.zoom-b //' > "$D/zoom"
cat > "$D/zoom.want" <<'X'
all x=10.00 y=84 w=1180.00 class=a
a x=10.00 y=68 w=1180.00 class=a
b x=10.00 y=52 w=1180.00 class=
c x=10.00 y=36 w=472.00 class=
d x=482.00 y=36 w=708.00 class=
e x=600 y=52 w=472 class=h
f x=1072 y=68 w=118 class=h
X
same "zoom on b: the subtree scaled to the width, ancestors kept, the rest hidden" "$D/zoom" "$D/zoom.want"
# search c inside b: 2 of b's 5 samples; c highlighted (class m)
want p.zoom-b.search-c '"Matched: 40.00%" c x=10.00 y=36 w=472.00 class=m'
want p.esc1 '"" c x=10.00 y=36 w=472.00 class='
want p.esc2 "b x=10.00 y=52 w=590.00 class= / e x=600.00 y=52 w=472.00 class="
# [bcd]: b matches, and c and d inside it are not counted again: 5 of 10;
# zoomed on a, of its 9: 55.56%
want p.search-bcd '"Matched: 50.00%"'
want p.search-bcd.zoom-a '"Matched: 55.56%"'
want p.reset 'a x=10.00 y=68 w=1062.00 class= "Matched: 50.00%"'
want p.bad true
# upper case: case-sensitive, no name has an A; lower case: "all" holds all
want p.upper-A '"Matched: 0.00%"'
want p.lower-a '"Matched: 100.00%"'
want p.empty '"" all x=10.00 y=84 w=1180.00 class='
want p.hover-d '"d (3 samples, 30.00%)"'

# The icicle: the root on top (y 36), children below; the same widths.
want i.before "all x=10 y=36 w=1180 class= / c x=10 y=84 w=236 class="
grep -F 'i.zoom-b ' "$D/got" | sed 's/^i.zoom-b //' > "$D/izoom"
cat > "$D/izoom.want" <<'X'
all x=10.00 y=36 w=1180.00 class=a
b x=10.00 y=68 w=1180.00 class=
c x=10.00 y=84 w=472.00 class=
d x=482.00 y=84 w=708.00 class=
e x=600 y=68 w=472 class=h
X
same "icicle: zoom on b" "$D/izoom" "$D/izoom.want"

# --diff: the after counts (b 8 of 20; of a's 10)
want d.search-b '"Matched: 40.00%"'
want d.search-b.zoom-a '"Matched: 80.00%"'

# Hostile names: all, main and 4 frames; each name found whole (of 7),
# blanks and all
want h.frames 6
want h.script '"Matched: 28.57%"'
want h.cdata '"Matched: 14.29%"'
want h.markup '"Matched: 42.86%"'
want h.spaces '"Matched: 14.29%"'
done_testing
