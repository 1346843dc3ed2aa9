// catch_main.cpp — the one translation unit that holds the Catch2 main.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
