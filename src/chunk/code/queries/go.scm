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

(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(type_declaration (type_alias name: (type_identifier) @name)) @definition.type

(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.const)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.var)

; Embedded interfaces and embedded struct fields, Go's way of extending a type
; (implicit interface satisfaction is not captured), kept with their package
; (`io.Reader`), which tells two packages' `Reader` apart.
((type_declaration
  (type_spec type: (interface_type (type_elem [(type_identifier) (qualified_type)] @super)))) @definition.interface
  (#set! qualified))
((type_declaration
  (type_spec type: (struct_type (field_declaration_list
    (field_declaration !name type: (_) @super))))) @definition.struct
  (#set! qualified))

; The methods an interface requires: a type with methods of those names
; satisfies it without naming it.
(type_declaration
  (type_spec type: (interface_type (method_elem name: (field_identifier) @requires)))) @definition.interface

; Members declared in their type's chunk: a struct's fields (each name of
; `X, Y int`), an interface's methods.
(type_declaration (type_spec type: (struct_type (field_declaration_list
  (field_declaration name: (field_identifier) @declared_name) @declared.field))))
(type_declaration (type_spec type: (interface_type
  (method_elem name: (field_identifier) @declared_name) @declared.method)))
