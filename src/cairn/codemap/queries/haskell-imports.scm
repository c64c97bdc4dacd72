(import module: (module) @import)
