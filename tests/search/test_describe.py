"""A file's description in `cairn explain` (issue 35): never its licence header (cats' MIT header
was), nor directives or tags; a language's own doc form where it has one."""

from __future__ import annotations

import pytest

from cairn.search.explain import describe

MIT_SCALA = """/*
 * Copyright (c) 2015 Typelevel
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of
 * this software and associated documentation files (the "Software"), to deal in
 * the Software without restriction, including without limitation the rights to
 * use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
 * the Software, and to permit persons to whom the Software is furnished to do so,
 * subject to the following conditions:
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
 */

package cats
package arrow

/**
 * Must obey the laws defined in cats.laws.StrongLaws.
 */
trait Strong[F[_, _]] extends Profunctor[F]
"""


@pytest.mark.parametrize(
    ("text", "lang", "want"),
    [
        (MIT_SCALA, "scala", ""),  # the licence, then code: no description rather than the licence
        (
            "// Copyright 2009 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n"
            "// license that can be found in the LICENSE file.\n\n// Package http serves HTTP.\n//\n// More.\npackage http\n",
            "go",
            "Package http serves HTTP.",
        ),
        (
            "/*\n * Licensed to the Apache Software Foundation (ASF) under one\n * or more contributor license agreements.\n */\n"
            "/**\n * The router: maps paths to handlers.\n *\n * Details.\n */\npublic class Router {}\n",
            "java",
            "The router: maps paths to handlers.",
        ),
        (
            '#!/usr/bin/env python\n# SPDX-License-Identifier: MIT\n# Copyright 2020 Example\n\n"""Charging cards.\n\nMore."""\n',
            "python",
            "Charging cards.",
        ),
        ("/* Copyright (c) 2015 X */\n/* Small fast hashing. */\nint x;\n", "c", "Small fast hashing."),
        (
            "{- Copyright 2010 X\n   BSD-3-Clause: see LICENSE; all rights reserved -}\n-- | Parsers for JSON.\nmodule A where\n",
            "haskell",
            "Parsers for JSON.",
        ),
        (
            "# Checks the licence headers of every file.\nimport re\n",
            "python",
            "Checks the licence headers of every file.",
        ),
        # AFNetworking: after its MIT header, `#import` lines were the description of every header file
        (
            "// AFURLSessionManager.h\n// Copyright (c) 2011-2016 Alamofire Software Foundation\n\n"
            "#import <Foundation/Foundation.h>\n#import <CoreGraphics/CoreGraphics.h>\n\n@interface A : NSObject\n",
            "objc",
            "",
        ),
        ("# Python comments still describe\nimport os\n", "python", "Python comments still describe"),
        # haskell/aeson: a Haddock module header (fields, then the text) after the LANGUAGE pragmas
        (
            "{-# LANGUAGE ScopedTypeVariables #-}\n-- |\n-- Module:      Data.Aeson\n-- Copyright:   (c) 2011-2016 Bryan O'Sullivan\n"
            "-- License:     BSD3\n-- Stability:   experimental\n--\n-- Types and functions for working with JSON data.\n--\n"
            "-- (A note on naming.)\n\nmodule Data.Aeson\n",
            "haskell",
            "Types and functions for working with JSON data.",
        ),
        (
            "{-# LANGUAGE CPP #-}\n{-# LANGUAGE GADTs #-}\n\n-- |\n-- Strong type for JSON keys.\n--\n-- @since 2.0\nmodule K\n",
            "haskell",
            "Strong type for JSON keys.",
        ),
        # lazy.nvim: a LuaLS annotation was the description ('-@class LazyUtilCore')
        ("---@class LazyUtilCore\nlocal M = {}\n", "lua", ""),
        ("--- Plugin specs, merged.\n---@class LazySpec\nlocal M = {}\n", "lua", "Plugin specs, merged."),
        # elixir-plug/plug: every module describes itself in @moduledoc
        (
            'defmodule Plug.Router do\n  @moduledoc ~S"""\n  A DSL to define a routing algorithm.\n\n  More.\n  """\n',
            "elixir",
            "A DSL to define a routing algorithm.",
        ),
    ],
)
def test_description(text: str, lang: str, want: str) -> None:
    assert describe(text, lang) == want
