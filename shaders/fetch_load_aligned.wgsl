fn {{NAME}}(b: u32) -> u32 { let w = b >> 2u; return {{WORD_W}}; }
