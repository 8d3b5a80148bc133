"use strict";globalThis.__deflowScriptCompiled?.();var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;
