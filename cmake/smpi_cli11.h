// Force-included after SMPI's smpi_helpers.h in programs that use CLI11 (cmake/CommpressSmpi.cmake):
// its function-like macro exit(x) would rewrite CLI::App::exit's declaration. A rank of such a
// program that calls exit() ends the whole simulation, which is what an error there means.
#undef exit
