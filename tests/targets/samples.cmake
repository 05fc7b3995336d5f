# Sample targets: small real parsers with planted faults (see README.md beside this file).
cd_target(sample_json sample_json.c)
cd_target(sample_png sample_png.c)
cd_target(sample_png_asan sample_png.c FLAGS -fsanitize=address)
cd_target(sample_http sample_http.c FLAGS -fsanitize=fuzzer)
