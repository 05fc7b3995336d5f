/* Lua 5.4: compile a chunk (source or binary) without running it, in a fresh state. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return 0;
    luaL_loadbufferx(L, (const char *)data, size, "=input", "t");
    lua_close(L);
    return 0;
}
