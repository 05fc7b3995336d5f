# Sample targets: small real parsers with planted faults (see README.md beside this file).
cd_target(sample_json sample_json.c)
cd_target(sample_png sample_png.c LIBS -lz)
cd_target(sample_png_asan sample_png.c FLAGS -fsanitize=address LIBS -lz)
cd_target(sample_http sample_http.c FLAGS -fsanitize=fuzzer)
# A second harness of the HTTP format (request line and headers only), a plain @@ build: runs of
# several targets over one corpus.
cd_target(sample_http_headers sample_http.c FLAGS -DCD_HEADERS_ONLY
          ${PROJECT_SOURCE_DIR}/tools/real_targets/harness_main.c)
# The nightly guard's builds (tests/e2e/nightly_guard.sh): a good @@ build that reads only the
# file its argument names, a rebuild that aborts on every input, one that stops after the first
# byte.
set(CD_HARNESS_MAIN ${PROJECT_SOURCE_DIR}/tools/real_targets/harness_main.c)
cd_target(night_good sample_http.c FLAGS -DCD_FILE_ONLY ${CD_HARNESS_MAIN})
cd_target(night_abort sample_http.c FLAGS -DCD_FILE_ONLY -DCD_BROKEN_ABORT ${CD_HARNESS_MAIN})
cd_target(night_early sample_http.c FLAGS -DCD_FILE_ONLY -DCD_BROKEN_EARLY ${CD_HARNESS_MAIN})
# Coverage builds for audit in source terms (clang's source-based coverage, as OSS-Fuzz builds its
# coverage reports): plain clang, no AFL++ needed.
find_program(CD_CLANG clang)
if(CD_CLANG)
  cd_target(sample_json.cov sample_json.c COMPILER ${CD_CLANG}
            FLAGS -O0 -fprofile-instr-generate -fcoverage-mapping)
  cd_target(sample_png.cov sample_png.c COMPILER ${CD_CLANG}
            FLAGS -O0 -fprofile-instr-generate -fcoverage-mapping LIBS -lz)
  cd_target(sample_http.cov sample_http.c COMPILER ${CD_CLANG}
            FLAGS -O0 -fprofile-instr-generate -fcoverage-mapping
                  ${PROJECT_SOURCE_DIR}/tools/real_targets/harness_main.c)
  # libFuzzer binaries of the HTTP sample, as OSS-Fuzz builds fuzz targets: plain clang, no AFL++
  # (tests/e2e/libfuzzer_target.sh).
  cd_target(lf_http sample_http.c COMPILER ${CD_CLANG} FLAGS -fsanitize=fuzzer,address)
  cd_target(lf_http_plain sample_http.c COMPILER ${CD_CLANG} FLAGS -fsanitize=fuzzer)
endif()
# Crash triage: three planted bugs; the second build moves every address (-DCD_SHIFT).
cd_target(sample_bugs sample_bugs.c FLAGS -fsanitize=address)
cd_target(sample_bugs_shift sample_bugs.c FLAGS -fsanitize=address -DCD_SHIFT)
