# Executor test targets: fork-server, persistent/shared-memory, sanitizer, non-instrumented, one
# with unstable edges (state kept from run to run), and a hand-written fake that plays the
# fork-server protocol (built with the plain C compiler).
cd_target(exec_basic exec_basic.c FLAGS -pthread)
cd_target(exec_persist exec_persist.c)
cd_target(exec_san exec_san.c FLAGS -fsanitize=address,undefined)
cd_target(exec_plain exec_basic.c COMPILER ${CMAKE_C_COMPILER} FLAGS -pthread)
cd_target(exec_fake_fs exec_fake_fs.c COMPILER ${CMAKE_C_COMPILER})
cd_target(exec_unstable exec_unstable.c)
