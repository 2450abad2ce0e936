# Read by cpack once per generator: the .deb installs under /usr and leaves
# the bundled libraries out (it depends on Debian's); the .tar.gz keeps them.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
  set(CPACK_COMPONENTS_ALL Unspecified)
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
  set(CPACK_PACKAGE_FILE_NAME "heapleak-${CPACK_PACKAGE_VERSION}-linux-x86_64")
endif()
