#!/usr/bin/env bash
# Crash triage on sample_bugs (three planted bugs: two heap-buffer-overflow reads in two functions,
# one null write reached by two stacks that differ only below its top three frames). A pile of 120
# generated crashing inputs, laid out as two afl-fuzz instances' crashes/ and libFuzzer's crash-*
# files, must come out as exactly the three bugs: one reproducer each in DIR.crashes, named by its
# bug, minimal (5 bytes), showing its own kind and top frame when run alone; the manifest and
# `audit --crashes` list them with the inputs that showed each, and the HTML report has a page of
# them with previews; a rebuild with other addresses
# gives the same bug labels; --crash-frames 4 tells the two stacks apart; --crash-frames 0 names
# crashes by kind only; a nightly run over the triage keeps each bug's reproducer and
# `audit --diff` reports no bug new or gone.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
cd_need_cmd llvm-symbolizer "llvm-symbolizer not found (Debian package llvm)"
bin=${CD_BIN:?CD_BIN not set}
cd_scratch
t=$CD_TARGETS/sample_bugs

python3 - findings 120 <<'EOF'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(41)
def word(k): return ''.join(rnd.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(k))
def noise():
    v = rnd.randrange(4)
    if v == 0: return 'set:%s=%d' % (word(rnd.randrange(1, 9)), rnd.randrange(1000))
    if v == 1: return 'get:%s.%s' % (word(3), word(rnd.randrange(1, 6)))
    if v == 2: return 'echo:' + word(rnd.randrange(0, 40))
    return 'num:%d' % rnd.randrange(10**6)
def bug(k):
    if k == 0: return 'name:' + word(rnd.randrange(0, 30))
    if k == 1:
        c = rnd.randrange(5, 13)
        return 'sum:%d,' % c + ','.join(str(rnd.randrange(100)) for _ in range(c))
    if k == 2: return 'put:!%s=%d' % (word(rnd.randrange(0, 6)), rnd.randrange(99))
    return 'del:!' + word(rnd.randrange(0, 6))
for i in range(n):
    lines = [noise() for _ in range(rnd.randrange(0, 12))]
    lines.insert(rnd.randrange(len(lines) + 1), bug(i % 4))
    body = '\n'.join(lines) + ('\n' if rnd.randrange(2) else '')
    if i % 3 == 2:
        d, name = os.path.join(out, 'libfuzzer'), 'crash-%040x' % rnd.getrandbits(160)
    else:
        d = os.path.join(out, 'fuzzer%02d' % (i % 2 + 1), 'crashes')
        name = 'id:%06d,sig:06,src:000001,time:%d,execs:%d,op:havoc,rep:2' % (i, i * 37, i * 1000)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), 'w').write(body)
EOF

# bugs MANIFEST: one line per bug, "kind access frame1,frame2,... inputs size file"
bugs() {
    python3 - "$1" <<'EOF'
import json, sys
for b in json.load(open(sys.argv[1]))['bugs']:
    print(b['kind'], b['access'], ','.join(b['frames']), b['inputs'], b['size'], b['file'])
EOF
}

# to completion (every label finished: some 12,000 executions), so that each bug's reproducer is
# as small as reduction makes it, whatever the order the two workers took; bounded by executions,
# not time, so that a slow machine gets the same verdict
"$bin" -q findings -o triage --max-execs 200000 -j 2 -- "$t" @@
rc=$?
[ $rc = 0 ] || err "triage run exited $rc, not complete"
bugs triage.manifest.json > bugs.txt
cat bugs.txt
[ "$(wc -l < bugs.txt)" = 3 ] || err "expected 3 distinct bugs, got $(wc -l < bugs.txt)"
grep -q '^asan:heap-buffer-overflow READ read_name,' bugs.txt || err "no overflow in read_name"
grep -q '^asan:heap-buffer-overflow READ sum_values,' bugs.txt || err "no overflow in sum_values"
grep -q '^asan:SEGV WRITE store_record,flush,commit ' bugs.txt || err "no null write in store_record"
[ "$(awk '{s += $4} END {print s}' bugs.txt)" = 120 ] || err "the bugs' inputs do not add up to 120"
n=$(ls triage.crashes | wc -l)
[ "$n" = 3 ] || err "triage.crashes holds $n files, not 3"
while read -r kind access frames inputs size file; do
    f=triage.crashes/$file
    [ -f "$f" ] || { err "reproducer $file missing"; continue; }
    [ "$size" -le 5 ] || err "$file: $size bytes, the minimal trigger has 5"
    case $file in crash-asan-*-"${frames%%,*}"-*) ;; *) err "$file: not named by its bug" ;; esac
    # alone, symbolized by the sanitizer itself: its own kind and top frame
    ASAN_OPTIONS=symbolize=1:detect_leaks=0:handle_segv=1 "$t" "$f" > /dev/null 2> alone.txt
    grep -q "AddressSanitizer: ${kind#asan:}" alone.txt || err "$file: not a ${kind#asan:} alone"
    grep -E -q "#0 0x[0-9a-f]+ in ${frames%%,*} " alone.txt || err "$file: not in ${frames%%,*} alone"
done < bugs.txt
"$bin" audit triage.manifest.json --crashes > crashes.txt || err "audit --crashes failed"
head -1 crashes.txt | grep -q '^3 distinct bugs by sanitizer report; 0 reproducers without one$' || err "audit --crashes: $(head -1 crashes.txt)"
grep -q '    in store_record' crashes.txt || err "audit --crashes lists no frames"

# The HTML report's page of bugs: each with its frames and a preview of its reproducer.
"$bin" audit triage.manifest.json --html report > /dev/null 2>&1 || err "audit --html failed"
[ "$(grep -c '<h2 id=' report/crashes.html)" = 3 ] || err "crashes.html does not list 3 bugs"
grep -q 'store_record<br>flush<br>commit' report/crashes.html || err "crashes.html: no frames"
grep -q '<pre>del:!</pre>\|<pre>put:!</pre>' report/crashes.html || err "crashes.html: no preview"
grep -q 'href="crashes.html">3<' report/index.html || err "index.html does not link the 3 bugs"

# A rebuild with other addresses: the same bugs.
nm "$t" | grep -q ' t read_name$' &&
    [ "$(nm "$t" | awk '$3 == "read_name" {print $1}')" != \
      "$(nm "$t"_shift | awk '$3 == "read_name" {print $1}')" ] ||
    err "the shifted build does not move read_name"
"$bin" -q findings -o shift --no-reduce --no-state -- "$t"_shift @@
[ "$(bugs shift.manifest.json | cut -d' ' -f1-3 | sort)" = "$(cut -d' ' -f1-3 bugs.txt | sort)" ] ||
    err "the rebuilt target gives other bugs"
python3 - triage.manifest.json shift.manifest.json <<'EOF' || err "bug labels differ after a rebuild"
import json, sys
a, b = ([x['label'] for x in json.load(open(p))['bugs']] for p in sys.argv[1:])
sys.exit(sorted(a) != sorted(b))
EOF

# Four frames: the two stacks into store_record are two crash states.
"$bin" -q findings -o four --no-reduce --no-state --crash-frames 4 -- "$t" @@
[ "$(bugs four.manifest.json | wc -l)" = 4 ] || err "--crash-frames 4: not 4 bugs"
bugs four.manifest.json | grep -q 'store_record,flush,commit,handle_put ' ||
    err "--crash-frames 4: no stack through handle_put"
# No frames: kinds only, no bug labels.
"$bin" -q findings -o kinds --no-reduce --no-state --crash-frames 0 -- "$t" @@
[ -z "$(bugs kinds.manifest.json)" ] || err "--crash-frames 0 still makes bugs"
grep -q '"asan:heap-buffer-overflow"' kinds.manifest.json || err "--crash-frames 0: no kind label"

# Nightly: the triage plus the pile again keeps every reproducer; no bug is new or gone.
cp triage.manifest.json night0.json
"$bin" -q triage findings -o triage --max-execs 3000 -j 2 -- "$t" @@
[ $? -le 1 ] || err "nightly run failed"
# (inputs: 0 now, the pile's files were seen before)
[ "$(bugs triage.manifest.json | cut -d' ' -f1-3,5,6 | sort)" = "$(cut -d' ' -f1-3,5,6 bugs.txt | sort)" ] ||
    err "nightly run changed the bugs"
"$bin" audit triage.manifest.json --diff night0.json > diff.txt || err "audit --diff failed"
grep -q '^bugs: 3 -> 3; new 0, gone 0, changed 0$' diff.txt || err "audit --diff: $(grep bugs diff.txt)"
"$bin" audit triage.manifest.json --diff four.manifest.json > diff4.txt
# (four frames name read_name's and sum_values's bugs as three do: no fourth program frame)
grep -q '^bugs: 4 -> 3; new 1, gone 2, changed 2$' diff4.txt || err "audit --diff against four frames: $(grep bugs: diff4.txt)"

[ $fail = 0 ] && echo "crash triage: ok"
exit $fail
