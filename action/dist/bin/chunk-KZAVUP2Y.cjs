"use strict";var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;
