(preproc_include) @import
