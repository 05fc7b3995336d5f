#!/usr/bin/env bash
# audit --html: the report opens in a real browser (Debian's headless Chromium) from disk; the
# page's text shows the right totals (the manifest's seeds, the reproducers no sanitizer reported,
# the functions reached as audit --uncovered counts them), a screenshot is taken, every seed and reproducer has its page and each
# source file its page; a directory holding someone else's file is refused and left as it was,
# and a report's own directory is rewritten.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cov=${CD_TARGETS:?}/sample_json.cov
cd_need "$target" "$cov"
command -v chromium >/dev/null || { echo "FAIL: chromium missing (Debian package chromium)"; exit 1; }
cd_scratch
browse() { # browse OUTPUT-FLAG PAGE: headless Chromium on a file of the report
  timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
    --window-size=1280,1400 "$1" "file://$tmp/$2" 2>/dev/null
}

mkdir in
printf '{"a": [1, 2.5, "x"], "b": {"c": null}}' >in/a.json
printf '[true, false, "\\u00e9"]' >in/b.json
printf '{"":{"":{"crash":0}}}' >in/crash.json
"$bin" -j 1 --max-execs 2000 in -o seeds -- "$target" @@ 2>run.err
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { echo "FAIL: distill exited $rc"; exit 1; }
# the summary counts the crash no sanitizer reported, by its kind
grep -qE "without a sanitizer report: 1 crash:SIG[A-Z]+ \(audit --crashes\)" run.err ||
  err "the summary does not count the unreported crash by kind: $(grep 'out:' run.err)"

"$bin" audit seeds.manifest.json --coverage "$cov" --html report 2>err.txt ||
  err "--html exited $?: $(cat err.txt)"
grep -q "report written to 'report/index.html'" err.txt || err "no report line: $(cat err.txt)"
read -r n_seeds n_examples < <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]));
print(len(m["seeds"]), len(m["seeds"]) + len(m["reproducers"]))' seeds.manifest.json)
[ "$(ls report/seed-*.html | wc -l)" = "$n_examples" ] || err "not one page per seed and reproducer"
[ -f report/file-0.html ] || err "no source file page"
"$bin" audit seeds.manifest.json --uncovered --json >unc.json || err "--uncovered --json"
functions=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]));
print("%d of %d" % (j["functions"] - j["functions_uncovered"], j["functions"]))' unc.json)

browse --dump-dom report/index.html >dom.html
grep -q "id=\"seeds\">$n_seeds<" dom.html || err "the page does not show $n_seeds seeds"
# the crash of crash.json, which no sanitizer reports in this build, is counted, not left out
n_unrep=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
print(sum(1 for r in m["reproducers"] if not any(l.startswith("bug:") or "san:" in l
                                                 for l in r["labels"])))' seeds.manifest.json)
[ "$n_unrep" -ge 1 ] || err "crash.json left no reproducer without a sanitizer report"
grep -q "id=\"unreported\"><a href=\"crashes.html#unreported\">$n_unrep<" dom.html ||
  err "the page does not count $n_unrep reproducers without a sanitizer report"
grep -q "<h1 id=\"unreported\">$n_unrep reproducer" report/crashes.html ||
  err "crashes.html does not list the reproducers without a sanitizer report"
grep -q "id=\"functions\">$functions<" dom.html || err "the page does not show $functions functions"
[ "$(grep -c '<svg' dom.html)" -ge 5 ] || err "the page has fewer than five plots"
browse --screenshot="$tmp/shot.png" report/index.html >/dev/null
[ -f shot.png ] && [ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
  [ "$(stat -c %s shot.png)" -gt 10000 ] || err "no screenshot of the report"
browse --dump-dom report/file-0.html >file.html
grep -q 'class="miss"' file.html && grep -q 'class="hot"' file.html ||
  err "the source page does not colour lines by the seeds reaching them"

mkdir other && echo "my notes" >other/notes.txt
"$bin" audit seeds.manifest.json --html other >/dev/null 2>err.txt
[ $? = 5 ] && grep -q "refusing to write the report into 'other'" err.txt ||
  err "a foreign directory was not refused: $(cat err.txt)"
[ "$(ls other)" = notes.txt ] && [ "$(cat other/notes.txt)" = "my notes" ] || err "other was touched"
"$bin" audit seeds.manifest.json --html report >/dev/null 2>err.txt || err "rewriting its own report: $(cat err.txt)"
[ $fail = 0 ] && echo "ok"
exit $fail
