/**
 * C and C++ files the indexer did not recognise are parsed again once: the template and inline definitions a header
 * includes (`.inl`, `.ipp`, `.tpp`, `.tcc`, `.txx`, `.h++`, `.c++`, module interfaces `.ixx`, `.cppm`), and headers
 * named without an extension (Eigen's `Eigen/Core`), found by their directives (languages.ts). Before, their
 * `#include`s made no edges: a header's reach held 62% of what g++ opens for it in glm, 0.5% in Eigen
 * (bench/cpp-includes.ts). Only files that had no language and are one of these (an extensionless file, when some
 * of its text holds such a directive); the next index run of each repository re-reads them.
 */
export const sql = `
UPDATE files SET hash = '', mtime_ms = -1
WHERE language IS NULL AND (
  lower(path) LIKE '%.inl' OR lower(path) LIKE '%.ipp' OR lower(path) LIKE '%.tpp' OR lower(path) LIKE '%.tcc'
  OR lower(path) LIKE '%.txx' OR lower(path) LIKE '%.h++' OR lower(path) LIKE '%.c++' OR lower(path) LIKE '%.ixx'
  OR lower(path) LIKE '%.cppm'
  OR (substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) NOT LIKE '%.%'
    AND EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = files.id
      AND (c.content LIKE '%#include%' OR c.content LIKE '%#pragma once%' OR c.content LIKE '%#ifndef%')))
);
`;
