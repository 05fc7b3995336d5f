#!/usr/bin/env bash
# The state file beside the output (DIR.state): a second run over unchanged inputs starts warm and
# executes nothing; a run killed with SIGKILL during reduction resumes from its last checkpoint
# (no first-pass execution again, every label of the checkpoint and of the inputs kept, complete);
# new inputs in a warm run are run and reduced; a changed target (other SHA-1) or a changed setting
# that changes labels (-e) runs the saved examples as inputs and drops the finished marks; a
# damaged or cut state file gives a one-line warning and a cold run; --no-state neither reads nor
# writes one.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch
field() { cd_json "$1" "$2"; }          # a top-level value of a --json-summary line
mfield() { cd_json "$1" "$2" "$3"; }    # a value one level down in a manifest
labels() { cd_manifest_labels "$1"; }   # a manifest's labels, one per line

mkdir all small more && tar --zstd -xf "$corpus" -C all || exit 1
# 80 small files complete in seconds anywhere; 20 more are the "new inputs" of a later night.
find all -type f -printf '%s %p\n' | sort -n | head -n 100 | cut -d' ' -f2- >list
head -n 80 list | while read -r f; do cp "$f" small/; done
tail -n 20 list | while read -r f; do cp "$f" more/; done

# Day 1, cold, to completion; day 2 over the same inputs: warm, nothing executed, same labels.
"$bin" -q -j 1 --json-summary small -o s -- "$target" @@ >d1.json
[ "$(field d1.json exit_code)" = 0 ] || err "day 1 exit $(field d1.json exit_code)"
[ "$(field d1.json state_start)" = cold ] || err "day 1 started $(field d1.json state_start)"
[ -s s.state ] || err "no s.state after day 1"
cp s.manifest.json d1.manifest.json
"$bin" -j 1 --json-summary small -o s -- "$target" @@ >d2.json 2>d2.err
[ "$(field d2.json exit_code)" = 0 ] || err "warm run exit $(field d2.json exit_code)"
[ "$(field d2.json state_start)" = warm ] || err "warm run started $(field d2.json state_start)"
[ "$(field d2.json executions)" = 0 ] || err "warm run over unchanged inputs executed $(field d2.json executions)"
grep -q "warm start from 's.state' (after 1 run)" d2.err || err "no warm start line: $(cat d2.err)"
[ "$(labels s.manifest.json)" = "$(labels d1.manifest.json)" ] || err "warm run's labels differ"
[ "$(field d2.json seed_bytes)" -le "$(field d1.json seed_bytes)" ] || err "warm run's seeds grew"
[ "$(mfield s.manifest.json state runs)" = 2 ] || err "manifest state.runs $(mfield s.manifest.json state runs)"
# The seeds are weighed against day 1's first pass (the inputs as they came), not against the
# warm run's, whose inputs hold the seeds: the baseline stays, and the summary says whose it is.
[ "$(field d2.json baseline_run)" = 1 ] || err "warm run's baseline_run $(field d2.json baseline_run)"
[ "$(field d2.json baseline_select_only_bytes)" = "$(field d1.json select_only_bytes)" ] &&
  [ "$(field d2.json baseline_cmin_rule_bytes)" = "$(field d1.json cmin_rule_bytes)" ] ||
  err "warm run's baseline is not day 1's first pass"
"$bin" audit s.manifest.json --html rep >/dev/null 2>&1 || err "audit --html of the warm run"
grep -q "run 1's select only" rep/index.html && grep -q "afl-cmin's rule (simulated)" rep/index.html ||
  err "the report does not show the kept baseline beside this run's figures"
grep -q "of run 1's inputs: the baseline the state keeps" d2.err &&
  grep -q "of this run's inputs, the last seeds among them" d2.err ||
  err "the summary does not name the two baselines: $(grep 'seed bytes' d2.err)"
# Once warm, a run over unchanged inputs changes nothing at all.
ls s >d2.list
"$bin" -q -j 1 --json-summary small -o s -- "$target" @@ >d2b.json
[ "$(ls s)" = "$(cat d2.list)" ] || err "a second warm run changed the seeds"
[ "$(field d2b.json executions)" = 0 ] || err "a second warm run executed $(field d2b.json executions)"

# Day 3: new inputs beside the old; only they run in the first pass, and the run completes.
"$bin" -q -j 1 --json-summary small more -o s -- "$target" @@ >d3.json
[ "$(field d3.json exit_code)" = 0 ] || err "day 3 exit $(field d3.json exit_code)"
fp=$(python3 -c "import json; print(json.load(open('s.manifest.json'))['run']['first_pass_executions'])")
[ "$fp" = 20 ] || err "day 3 ran $fp inputs in its first pass, expected the 20 new ones"
comm -23 <(labels d1.manifest.json) <(labels s.manifest.json) | grep -q . && err "day 3 lost labels"

# Resume after SIGKILL: killed during reduction once a checkpoint was written after the first
# pass, the same command carries on from it. (The small files: seconds to completion; the kill
# comes at the first checkpoint of the reduction, a second into it.)
"$bin" -j 1 --no-reduce small -o ref -- "$target" @@ 2>/dev/null
"$bin" -j 1 --checkpoint 1 small -o k -- "$target" @@ 2>k.err &
pid=$!
# (the waits last as long as the run lives, however slow the machine)
while kill -0 "$pid" 2>/dev/null && ! grep -q "reduce:" k.err; do sleep 0.1; done
grep -q "reduce:" k.err || err "no reduction line from the run to kill (premise)"
mark=$(date +%s.%N)
while kill -0 "$pid" 2>/dev/null; do
    [ -f k.state ] && [ "$(stat -c %.9Y k.state)" \> "$mark" ] && break
    sleep 0.05
done
kill -9 "$pid" 2>/dev/null || err "the run ended before it could be killed (premise)"
wait "$pid" 2>/dev/null
[ -f k.manifest.json ] && err "the killed run wrote a manifest (premise)"
cp k.state k.checkpoint
"$bin" -j 1 --json-summary small -o k -- "$target" @@ >k.json 2>k2.err
[ "$(field k.json exit_code)" = 0 ] || err "resumed run exit $(field k.json exit_code)"
[ "$(field k.json state_start)" = warm ] || err "resumed run started $(field k.json state_start)"
fpk=$(python3 -c "import json; print(json.load(open('k.manifest.json'))['run']['first_pass_executions'])")
[ "$fpk" = 0 ] || err "the resumed run ran $fpk inputs again"
ck=$(sed -n "s/.*warm start from 'k.state' (after 1 run): \([0-9]*\) labels.*/\1/p" k2.err)
[ -n "$ck" ] && [ "$(field k.json labels)" -ge "$ck" ] || err "resumed: $(field k.json labels) labels, checkpoint $ck"
missing=$(comm -23 <(labels ref.manifest.json) <(labels k.manifest.json) | head -n 3)
[ -z "$missing" ] || err "the resumed run lost input labels: $missing"

# A changed target: same program, other bytes (so another SHA-1). From here on the runs have a
# budget: what they check is how they start, not that they complete.
cp "$target" t2 && printf 'x' >>t2 && chmod +x t2
"$bin" -j 1 --max-execs 1500 --json-summary small -o s -- ./t2 @@ >t2.json 2>t2.err
[ "$(field t2.json exit_code)" -le 1 ] || err "changed target exit $(field t2.json exit_code)"
[ "$(field t2.json state_start)" = "target changed" ] || err "changed target started $(field t2.json state_start)"
grep -q "the target changed since the state 's.state' was saved" t2.err || err "message: $(cat t2.err)"
grep -q "finished marks are dropped" t2.err || err "message: $(cat t2.err)"
[ "$(field t2.json executions)" -gt 0 ] || err "changed target executed nothing"
[ "$(mfield s.manifest.json state start)" = "target changed" ] || err "manifest state.start"
comm -23 <(labels d1.manifest.json) <(labels s.manifest.json) | grep -q . && err "changed target lost labels"

# A changed setting that changes labels.
"$bin" -j 1 -e --max-execs 1500 --json-summary small -o s -- ./t2 @@ >e.json 2>e.err
[ "$(field e.json state_start)" = "settings changed" ] || err "-e started $(field e.json state_start)"
grep -q "edges_only was '0', now '1'" e.err || err "message: $(cat e.err)"

# Damaged and cut state files: a warning naming the file, a cold run, a new state.
python3 - <<'EOF'
data = bytearray(open('s.state', 'rb').read())
data[len(data) // 2] ^= 0xff
open('s.state', 'wb').write(data)
EOF
"$bin" -j 1 -e --max-execs 1500 --json-summary small -o s -- ./t2 @@ >dmg.json 2>dmg.err
[ "$(field dmg.json exit_code)" -le 1 ] || err "damaged state: exit $(field dmg.json exit_code)"
[ "$(field dmg.json state_start)" = unreadable ] || err "damaged state started $(field dmg.json state_start)"
grep -q "'s.state': damaged state file: checksum mismatch" dmg.err || err "message: $(cat dmg.err)"
[ "$(field dmg.json executions)" -gt 0 ] || err "damaged state: nothing executed"
head -c 100 s.state >cut && mv cut s.state
"$bin" -j 1 -e --max-execs 1500 --json-summary small -o s -- ./t2 @@ >cut.json 2>cut.err
[ "$(field cut.json state_start)" = unreadable ] || err "cut state started $(field cut.json state_start)"
[ "$(grep -c "s.state" cut.err)" = 2 ] || err "cut state: $(cat cut.err)"
grep -q "^corpus-distill: 's.state': damaged state file: .*; starting cold$" cut.err ||
    err "cut state: no one-line warning: $(cat cut.err)"
"$bin" -q -j 1 -e --json-summary small -o s -- ./t2 @@ >ok.json
[ "$(field ok.json state_start)" = warm ] || err "state not rewritten after a damaged one"

# --no-state: nothing read, nothing written.
"$bin" -q -j 1 --no-state --no-reduce --json-summary small -o n -- "$target" @@ >n.json
[ -e n.state ] && err "--no-state wrote n.state"
[ "$(field n.json state_start)" = none ] || err "--no-state started $(field n.json state_start)"
leftovers=$(find . -maxdepth 1 -name '.*.tmp-*')
[ -z "$leftovers" ] || err "temp files left: $leftovers"

[ $fail = 0 ] && echo "cli_state: ok"
exit $fail
