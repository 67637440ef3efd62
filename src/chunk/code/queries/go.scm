; Symbols of a Go file (see rust.scm for the conventions). Methods are written
; outside their type, so the receiver type is captured as `@scope`: `Cache.Get`.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name) @definition.method

(method_declaration name: (field_identifier) @name) @definition.method

; A parenthesized group (`const (…)`, `var (…)`, `type (…)`) declares
; package-level names like the ungrouped form does, so each spec in it is a
; symbol with its own chunk and lines; the group itself is none (its `(` and
; `)` are text between symbols). The ungrouped patterns check the keyword is
; not followed by `(`: anchors cannot tell, they skip anonymous nodes.
(type_declaration "(" (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)
(type_declaration "(" (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
(type_declaration "(" [
  (type_spec name: (type_identifier) @name)
  (type_alias name: (type_identifier) @name)] @definition.type)
(source_file (const_declaration "(" (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.var)))

((type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
  (#not-match? @definition.struct "^type\\s*[(]"))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*[(]"))
((type_declaration (type_spec name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*[(]"))
((type_declaration (type_alias name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*[(]"))

((source_file (const_declaration (const_spec name: (identifier) @name)) @definition.const)
  (#not-match? @definition.const "^const\\s*[(]"))
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.var)

; Each further name of a spec (`var a, b = 1, 2`) is declared in the
; spec's chunk, a sibling of its first name rather than a member.
([(var_declaration (var_spec name: (identifier) name: (identifier) @declared_name @declared.var))
  (var_spec_list (var_spec name: (identifier) name: (identifier) @declared_name @declared.var))])
(const_declaration (const_spec name: (identifier) name: (identifier) @declared_name @declared.const))

; Embedded interfaces and embedded struct fields, Go's way of extending a type
; (implicit interface satisfaction is not captured), kept with their package
; (`io.Reader`), which tells two packages' `Reader` apart. Each is attached
; to the declaration and to the spec: a grouped type's symbol is its spec.
([(type_declaration
   (type_spec type: (interface_type (type_elem [(type_identifier) (qualified_type)] @super))))
  (type_spec type: (interface_type (type_elem [(type_identifier) (qualified_type)] @super)))] @definition.interface
  (#set! qualified))
([(type_declaration
   (type_spec type: (struct_type (field_declaration_list
     (field_declaration !name type: (_) @super)))))
  (type_spec type: (struct_type (field_declaration_list
    (field_declaration !name type: (_) @super))))] @definition.struct
  (#set! qualified))

; The methods an interface requires: a type with methods of those names
; satisfies it without naming it.
([(type_declaration
   (type_spec type: (interface_type (method_elem name: (field_identifier) @requires))))
  (type_spec type: (interface_type (method_elem name: (field_identifier) @requires)))] @definition.interface)

; Members declared in their type's chunk: a struct's fields (each name of
; `X, Y int`), an interface's methods.
(type_declaration (type_spec type: (struct_type (field_declaration_list
  (field_declaration name: (field_identifier) @declared_name) @declared.field))))
(type_declaration (type_spec type: (interface_type
  (method_elem name: (field_identifier) @declared_name) @declared.method)))
